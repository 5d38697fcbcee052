/**
 * Trailing bytes after a request body. Iggy's servers decode most requests from a prefix and
 * ignore what follows (0.8 logs it, 0.9 uses `decode_from`), so an SDK may append fields an
 * older server does not know, such as the partitions count the official Node SDK adds to
 * DeleteTopic. The codecs here are strict (`ByteReader.end()`); this adapter lets a server
 * accept the prefix where Iggy does, without a lenient copy of every decoder.
 */

import { IggyCodecError } from '../errors.js';

/**
 * Where the decoded structure ends, when `error` is the strict reader's trailing-bytes refusal
 * for the whole of `bytes` (a nested reader over a sub-slice does not qualify).
 */
function structureEnd(error: unknown, bytes: Uint8Array): number | undefined {
  if (!(error instanceof IggyCodecError)) return undefined;
  const offset = error.context?.['offset'];
  const trailing = error.context?.['trailing'];
  if (typeof offset !== 'number' || typeof trailing !== 'number' || trailing <= 0) return undefined;
  return offset + trailing === bytes.length ? offset : undefined;
}

/**
 * Decodes `bytes` with a strict decoder, but accepts a body that carries bytes after the
 * structure: the prefix is decoded and the rest ignored. Every other failure (truncation, bad
 * values) is thrown unchanged, so hostile input still ends in a typed codec error.
 */
export function decodeIgnoringTrailingBytes<T, A extends readonly unknown[]>(decode: (bytes: Uint8Array, ...rest: A) => T, bytes: Uint8Array, ...rest: A): T {
  try {
    return decode(bytes, ...rest);
  } catch (error) {
    const end = structureEnd(error, bytes);
    if (end === undefined) throw error;
    return decode(bytes.subarray(0, end), ...rest);
  }
}

/**
 * Wraps a strict request decoder into one that ignores trailing bytes (see
 * {@link decodeIgnoringTrailingBytes}); the signature is kept.
 */
export function ignoringTrailingBytes<T, A extends readonly unknown[]>(decode: (bytes: Uint8Array, ...rest: A) => T): (bytes: Uint8Array, ...rest: A) => T {
  return (bytes, ...rest) => decodeIgnoringTrailingBytes(decode, bytes, ...rest);
}
