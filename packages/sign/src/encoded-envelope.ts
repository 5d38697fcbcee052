import { CodecError } from '@agdx/wire';
import { decode } from 'cbor2';
import { signatureFromMap } from './signature-capsule.js';
import type { Signature } from '@agdx/wire';
import { MAX_SIGNATURE_BYTES } from './cbor-caps.js';

/** An encoded envelope split into its signature and the exact bytes the signature covers. */
export interface SplitEnvelope {
  /** The envelope's CBOR with the `signature` entry removed. */
  readonly unsigned: Uint8Array;
  /** The decoded signature capsule, when the envelope has one. */
  readonly signature: Signature | undefined;
}

function fail(message: string): CodecError {
  return new CodecError(message, { context: { surface: 'envelope' } });
}

// Reads one item head; returns [argument, position after head]. Indefinite lengths give -1.
function head(bytes: Uint8Array, at: number): [major: number, arg: number, next: number] {
  if (at >= bytes.length) throw fail('truncated envelope CBOR');
  const initial = bytes[at]!;
  const major = initial >> 5;
  const info = initial & 31;
  if (info < 24) return [major, info, at + 1];
  if (info === 31) return [major, -1, at + 1];
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0) throw fail('malformed CBOR head in envelope');
  if (at + 1 + size > bytes.length) throw fail('truncated envelope CBOR');
  // Integers may use the whole u64 range; as a length such a value only has to compare as
  // larger than the input, so precision loss above 2^53 does not matter.
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + bytes[at + 1 + i]!;
  return [major, value, at + 1 + size];
}

// Returns the position right after the item starting at `at`.
function skip(bytes: Uint8Array, at: number, depth: number): number {
  if (depth > 64) throw fail('envelope CBOR nests too deeply');
  const [major, arg, next] = head(bytes, at);
  switch (major) {
    case 0:
    case 1:
      if (arg < 0) throw fail('malformed CBOR integer in envelope');
      return next;
    case 2:
    case 3:
      if (arg < 0) throw fail('indefinite-length string in envelope');
      if (next + arg > bytes.length) throw fail('truncated envelope CBOR');
      return next + arg;
    case 4:
    case 5: {
      const items = major === 5 ? 2 : 1;
      let pos = next;
      if (arg < 0) {
        while (pos < bytes.length && bytes[pos] !== 0xff) pos = skip(bytes, pos, depth + 1);
        if (pos >= bytes.length) throw fail('truncated envelope CBOR');
        return pos + 1;
      }
      if (arg * items > bytes.length - pos) throw fail('truncated envelope CBOR');
      for (let i = 0; i < arg * items; i++) pos = skip(bytes, pos, depth + 1);
      return pos;
    }
    case 6:
      return skip(bytes, next, depth + 1);
    default:
      if (arg < 0) throw fail('unexpected CBOR break in envelope');
      return next;
  }
}

const SIGNATURE_KEY = Uint8Array.of(0x69, ...Array.from('signature', (c) => c.charCodeAt(0)));

function keyIsSignature(bytes: Uint8Array, at: number, end: number): boolean {
  if (end - at !== SIGNATURE_KEY.length) return false;
  for (let i = 0; i < SIGNATURE_KEY.length; i++) if (bytes[at + i] !== SIGNATURE_KEY[i]) return false;
  return true;
}

function mapHead(count: number): number[] {
  if (count < 24) return [0xa0 | count];
  if (count < 256) return [0xb8, count];
  return [0xb9, count >> 8, count & 0xff];
}

/**
 * Splits encoded envelope bytes into the signature capsule and the exact bytes it covers,
 * without decoding the rest. The top level must be a definite-length map (canonical form).
 *
 * @throws CodecError for truncated or malformed CBOR, a non-map, or trailing bytes.
 */
export function splitSignedEnvelope(bytes: Uint8Array): SplitEnvelope {
  if (!(bytes instanceof Uint8Array)) throw fail('envelope must be bytes');
  const [major, count, first] = head(bytes, 0);
  if (major !== 5) throw fail('envelope must be a CBOR map');
  if (count < 0) throw fail('envelope map must have a definite length to be verified from bytes');
  let pos = first;
  let signatureStart = -1;
  let signatureEnd = -1;
  let valueStart = -1;
  for (let i = 0; i < count; i++) {
    const keyStart = pos;
    const keyEnd = skip(bytes, pos, 1);
    const valueEnd = skip(bytes, keyEnd, 1);
    if (keyIsSignature(bytes, keyStart, keyEnd)) {
      if (signatureStart >= 0) throw fail('duplicate signature in envelope');
      signatureStart = keyStart;
      valueStart = keyEnd;
      signatureEnd = valueEnd;
    }
    pos = valueEnd;
  }
  if (pos !== bytes.length) throw fail('trailing bytes after envelope');
  if (signatureStart < 0) return { unsigned: bytes.slice(), signature: undefined };
  if (signatureEnd - valueStart > MAX_SIGNATURE_BYTES) throw fail(`signature is ${signatureEnd - valueStart}B, exceeds cap ${MAX_SIGNATURE_BYTES}B`);
  let raw: unknown;
  try {
    raw = decode(bytes.subarray(valueStart, signatureEnd), { preferMap: true, rejectDuplicateKeys: true });
  } catch (cause) {
    throw new CodecError('signature is not valid CBOR', { cause, context: { surface: 'signature' } });
  }
  const signature = signatureFromMap(raw);
  const headBytes = mapHead(count - 1);
  const body = [bytes.subarray(first, signatureStart), bytes.subarray(signatureEnd)];
  const unsigned = new Uint8Array(headBytes.length + body[0]!.length + body[1]!.length);
  unsigned.set(headBytes, 0);
  unsigned.set(body[0]!, headBytes.length);
  unsigned.set(body[1]!, headBytes.length + body[0]!.length);
  return { unsigned, signature };
}
