import { InvalidError } from '../errors.js';
import type { HeaderValue, RecordHeaders } from './header-value.js';

/** Soft cap on the total header bytes of one record. */
export const HEADER_SOFT_CAP = 1024;
/** Largest value of a single header, in bytes. */
export const HEADER_VALUE_MAX = 255;
/** Framing bytes counted per header toward {@link HEADER_SOFT_CAP}. */
export const HEADER_FRAMING_BYTES = 9;

const encoder = new TextEncoder();

/** Σ (UTF-8 key bytes + value bytes + 9) over every header: the size the soft cap applies to. */
export function headerBlockSize(headers: RecordHeaders): number {
  let total = 0;
  for (const [key, value] of headers) total += encoder.encode(key).length + value.value.length + HEADER_FRAMING_BYTES;
  return total;
}

/**
 * Checks one header value against the documented limits: non-empty, at most 255 bytes, and for
 * text values no control characters (bytes below 0x20, or 0x7f).
 */
export function checkHeaderValue(name: string, value: HeaderValue): void {
  const bytes = value.value;
  if (value.kind === 'string' || value.kind === 'raw') {
    if (bytes.length === 0) throw new InvalidError(`header \`${name}\` value must not be empty`, { context: { header: name } });
  }
  if (bytes.length > HEADER_VALUE_MAX) {
    throw new InvalidError(`header \`${name}\` value is ${bytes.length}B, exceeds max ${HEADER_VALUE_MAX}B`, {
      context: { header: name, bytes: bytes.length, cap: HEADER_VALUE_MAX },
    });
  }
  if (value.kind === 'string') {
    for (const b of bytes) {
      if (b < 0x20 || b === 0x7f) {
        throw new InvalidError(`header \`${name}\` value must not contain control characters or NUL`, { context: { header: name } });
      }
    }
  }
}

/** Throws InvalidError `<label> NB exceed soft cap 1024B` when the block is over the soft cap. */
export function checkSoftCap(headers: RecordHeaders, label: string): void {
  const total = headerBlockSize(headers);
  if (total > HEADER_SOFT_CAP) {
    throw new InvalidError(`${label} ${total}B exceed soft cap ${HEADER_SOFT_CAP}B`, { context: { bytes: total, cap: HEADER_SOFT_CAP } });
  }
}

/** A new header map with the entries sorted by key (byte order; header names are ASCII). */
export function sortHeaders(entries: Iterable<readonly [string, HeaderValue]>): RecordHeaders {
  return new Map([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
