/** Argument checks shared by the encoders; each throws {@link IggyInvalidError}. */

import { IggyInvalidError } from '../errors.js';
import { encodeUtf8 } from './byte-writer.js';

/** Checks a u8 value. */
export function checkU8(v: number, field: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xff) throw new IggyInvalidError(`${field} must be a u8, got ${String(v)}`, { context: { field } });
  return v;
}

/** Checks a u32 value. */
export function checkU32(v: number, field: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) throw new IggyInvalidError(`${field} must be a u32, got ${String(v)}`, { context: { field } });
  return v;
}

/** Checks a u64 value. */
export function checkU64(v: bigint, field: string): bigint {
  if (typeof v !== 'bigint' || v < 0n || v > 0xffff_ffff_ffff_ffffn) throw new IggyInvalidError(`${field} must be a u64 bigint, got ${String(v)}`, { context: { field } });
  return v;
}

/** Checks a u128 value. */
export function checkU128(v: bigint, field: string): bigint {
  if (typeof v !== 'bigint' || v < 0n || v >> 128n !== 0n) throw new IggyInvalidError(`${field} must be a u128 bigint, got ${String(v)}`, { context: { field } });
  return v;
}

// Stream, topic and group identifiers repeat on every request, so their UTF-8 bytes are cached
// (bounded) when the caller asks. Callers only copy from the returned arrays, never mutate
// them. Credentials are never cached.
const NAME_CACHE = new Map<string, Uint8Array>();
const NAME_CACHE_LIMIT = 1024;

/** Encodes a WireName's bytes, checking the 1..255 byte length; `cache` memoises identifiers. */
export function wireNameBytes(name: string, field: string, cache = false): Uint8Array {
  if (typeof name !== 'string') throw new IggyInvalidError(`${field} must be a string`, { context: { field } });
  let b = cache ? NAME_CACHE.get(name) : undefined;
  if (b === undefined) {
    b = encodeUtf8(name);
    if (cache) {
      if (NAME_CACHE.size >= NAME_CACHE_LIMIT) NAME_CACHE.clear();
      NAME_CACHE.set(name, b);
    }
  }
  if (b.length < 1 || b.length > 255) throw new IggyInvalidError(`${field} must be 1..255 UTF-8 bytes, got ${b.length}`, { context: { field } });
  return b;
}

/** A body that is one WireName and nothing else: `[len u8][bytes]` (a token, a token's name). */
export function wireNameOnly(text: string, field: string): Uint8Array {
  const b = wireNameBytes(text, field);
  const out = new Uint8Array(1 + b.length);
  out[0] = b.length;
  out.set(b, 1);
  return out;
}

/** Encodes an optional short string (`[len u8][utf8]`, 0..255 bytes). */
export function shortStringBytes(text: string, field: string): Uint8Array {
  const b = encodeUtf8(text);
  if (b.length > 255) throw new IggyInvalidError(`${field} must be at most 255 UTF-8 bytes, got ${b.length}`, { context: { field } });
  return b;
}
