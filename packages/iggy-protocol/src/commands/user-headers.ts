/**
 * User headers: a flat TLV sequence of key/value pairs with no count prefix (Iggy ≥ 0.7):
 * `[key_kind u8][key_len u32][key][value_kind u8][value_len u32][value]`, lengths 1..255,
 * at most 100 000 bytes in total.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { ByteReader, decodeUtf8, STRICT_UTF8 } from '../internal/byte-reader.js';
import { encodeUtf8 } from '../internal/byte-writer.js';

/** Header value kinds (shared structurally with `@agdx/transport` and `@agdx/wire`). */
export type HeaderKind =
  | 'raw' | 'string' | 'bool'
  | 'int8' | 'int16' | 'int32' | 'int64' | 'int128'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'uint128'
  | 'float32' | 'float64';

/** A typed header value: its kind and its little-endian bytes. */
export interface HeaderValue {
  /** The value kind. */
  readonly kind: HeaderKind;
  /** The value bytes as they travel (little-endian for numbers, UTF-8 for strings). */
  readonly value: Uint8Array;
}

/** Iggy's kind codes (raw = 1 … float64 = 15). */
export const HEADER_KIND_CODES: Readonly<Record<HeaderKind, number>> = Object.freeze({
  raw: 1, string: 2, bool: 3, int8: 4, int16: 5, int32: 6, int64: 7, int128: 8,
  uint8: 9, uint16: 10, uint32: 11, uint64: 12, uint128: 13, float32: 14, float64: 15,
});

const KIND_BY_CODE: readonly (HeaderKind | undefined)[] = [
  undefined, 'raw', 'string', 'bool', 'int8', 'int16', 'int32', 'int64', 'int128',
  'uint8', 'uint16', 'uint32', 'uint64', 'uint128', 'float32', 'float64',
];

const FIXED_SIZE: Readonly<Partial<Record<HeaderKind, number>>> = {
  bool: 1, int8: 1, int16: 2, int32: 4, int64: 8, int128: 16,
  uint8: 1, uint16: 2, uint32: 4, uint64: 8, uint128: 16, float32: 4, float64: 8,
};

/** The largest user-header block the servers accept. */
export const MAX_USER_HEADERS_SIZE = 100_000;

/** The header kind for a wire code, or `undefined` for an unknown code. */
export function headerKindFromCode(code: number): HeaderKind | undefined {
  return KIND_BY_CODE[code];
}

/** Why a value does not fit its kind, or `undefined` when it does. */
function valueProblem(kind: HeaderKind, value: Uint8Array): string | undefined {
  if (value.length < 1 || value.length > 255) return `value must be 1..255 bytes, got ${value.length}`;
  const fixed = FIXED_SIZE[kind];
  if (fixed !== undefined && value.length !== fixed) return `${kind} value must be ${fixed} bytes, got ${value.length}`;
  if (kind === 'bool' && (value[0] as number) > 1) return 'bool value must be 0 or 1';
  return undefined;
}

/** One raw TLV entry, with the kind codes as sent (unknown codes are kept). */
export interface UserHeaderEntry {
  /** The key kind code (2 = string for the official clients). */
  readonly keyKind: number;
  /** The key bytes. */
  readonly key: Uint8Array;
  /** The value kind code. */
  readonly valueKind: number;
  /** The value bytes. */
  readonly value: Uint8Array;
}

// Header keys come from a small vocabulary, so their UTF-8 bytes are cached (bounded) to keep
// the per-message encode free of repeated TextEncoder calls.
const KEY_CACHE = new Map<string, Uint8Array>();
const KEY_CACHE_LIMIT = 1024;

function keyBytes(key: string): Uint8Array {
  let b = KEY_CACHE.get(key);
  if (b === undefined) {
    b = encodeUtf8(key);
    if (KEY_CACHE.size >= KEY_CACHE_LIMIT) KEY_CACHE.clear();
    KEY_CACHE.set(key, b);
  }
  return b;
}

/** Encodes user headers (string keys). Sizes are checked per kind; the whole block must fit 100 000 bytes. */
export function encodeUserHeaders(headers: ReadonlyMap<string, HeaderValue>): Uint8Array {
  if (headers.size === 0) return new Uint8Array(0);
  let size = 0;
  for (const [key, hv] of headers) {
    if (typeof key !== 'string') throw new IggyInvalidError('header keys must be strings', { context: { field: 'headers' } });
    const kb = keyBytes(key);
    if (kb.length < 1 || kb.length > 255) throw new IggyInvalidError(`header key must be 1..255 bytes: ${JSON.stringify(key)}`, { context: { field: 'headers', key } });
    if (HEADER_KIND_CODES[hv.kind] === undefined) throw new IggyInvalidError(`unknown header kind ${String(hv.kind)}`, { context: { field: 'headers', key } });
    if (!(hv.value instanceof Uint8Array)) throw new IggyInvalidError('header value must be a Uint8Array', { context: { field: 'headers', key } });
    const problem = valueProblem(hv.kind, hv.value);
    if (problem !== undefined) throw new IggyInvalidError(`header ${JSON.stringify(key)}: ${problem}`, { context: { field: 'headers', key } });
    size += 10 + kb.length + hv.value.length;
  }
  if (size > MAX_USER_HEADERS_SIZE) throw new IggyInvalidError(`user headers are ${size} bytes, above ${MAX_USER_HEADERS_SIZE}`, { context: { field: 'headers' } });
  const out = new Uint8Array(size);
  let pos = 0;
  for (const [key, hv] of headers) {
    const kb = keyBytes(key);
    // Lengths are at most 255, so the u32 LE length fields are one byte followed by zeros.
    out[pos] = 2;
    out[pos + 1] = kb.length;
    out.set(kb, pos + 5);
    pos += 5 + kb.length;
    out[pos] = HEADER_KIND_CODES[hv.kind];
    out[pos + 1] = hv.value.length;
    out.set(hv.value, pos + 5);
    pos += 5 + hv.value.length;
  }
  return out;
}

/**
 * Decodes a TLV block into raw entries with the structural rules: kinds non-zero, lengths 1..255,
 * whole pairs, no trailing bytes. Unknown kinds pass, as on the server.
 */
export function decodeUserHeaderEntries(block: Uint8Array): UserHeaderEntry[] {
  if (block.length > MAX_USER_HEADERS_SIZE) throw new IggyCodecError(`user headers are ${block.length} bytes, above ${MAX_USER_HEADERS_SIZE}`, { context: { size: block.length } });
  const r = new ByteReader(block, 'user headers');
  const out: UserHeaderEntry[] = [];
  while (r.remaining > 0) {
    const keyKind = r.u8('key kind');
    if (keyKind === 0) throw r.fail('key kind 0 is reserved', 'key kind');
    const keyLen = r.u32('key length');
    if (keyLen < 1 || keyLen > 255) throw r.fail(`key length ${keyLen} outside 1..255`, 'key length');
    const key = r.bytesView(keyLen, 'key');
    if (r.remaining === 0) throw r.fail('a key without a value', 'value kind');
    const valueKind = r.u8('value kind');
    if (valueKind === 0) throw r.fail('value kind 0 is reserved', 'value kind');
    const valueLen = r.u32('value length');
    if (valueLen < 1 || valueLen > 255) throw r.fail(`value length ${valueLen} outside 1..255`, 'value length');
    out.push({ keyKind, key, valueKind, value: r.bytesView(valueLen, 'value') });
  }
  return out;
}

/**
 * Decodes user headers into the typed model. Stricter than the server: keys must be strings
 * (kind 2), value kinds known and sized for their kind, keys unique, the TLV structure whole (as
 * {@link decodeUserHeaderEntries} checks it). Values are copied: they never share memory with
 * `block`. They are views of a copy of the block in a shared area (read them with their
 * `byteOffset`, as every typed reader does), so decoding a record's headers allocates no buffer.
 * That area is shared with other records' values: copy a value before transferring its `buffer`
 * (to a worker, with `ArrayBuffer.prototype.transfer`), or the other values in it are emptied.
 */
export function decodeUserHeaders(block: Uint8Array): Map<string, HeaderValue> {
  // Every record read goes through here, so the common case (a sound block) takes one pass with
  // no reader object, no entry list and no per-value copy. Anything it does not accept is decoded
  // again by the entry-by-entry path, which throws the error it always threw.
  const map = block.length <= MAX_USER_HEADERS_SIZE ? soundHeaders(block) : undefined;
  return map ?? checkedHeaders(block);
}

/** Bytes of the shared copy area; a header block larger than a quarter of it gets its own copy. */
const SLAB_BYTES = 16_384;
let slab = new Uint8Array(SLAB_BYTES);
let slabUsed = 0;

/**
 * A copy of `block` at `bytes[start, start + block.length)`. Header blocks are small and every
 * record read has one: a fresh buffer each (memory outside the heap, tracked by the collector) cost
 * more than the decode, so blocks are copied one after another into a shared area instead; a
 * record's values keep at most that area alive, as its payload keeps the reply it came in.
 */
function copyOf(block: Uint8Array): { bytes: Uint8Array; start: number } {
  const n = block.length;
  // Copied by hand, not with `slice()`: on a Node Buffer (what a socket hands over) that is a view.
  if (n > SLAB_BYTES / 4) return { bytes: ownCopy(block, 0, n), start: 0 };
  // Against the area's length, not SLAB_BYTES: a caller that transfers a value's buffer detaches
  // the area (its length becomes 0), and the next block must start a new one instead of failing.
  if (slabUsed + n > slab.length) {
    slab = new Uint8Array(SLAB_BYTES);
    slabUsed = 0;
  }
  const start = slabUsed;
  slab.set(block, start);
  slabUsed += n;
  return { bytes: slab, start };
}

/** The headers of a block that breaks no rule, or `undefined` when it breaks any. */
function soundHeaders(block: Uint8Array): Map<string, HeaderValue> | undefined {
  const map = new Map<string, HeaderValue>();
  const n = block.length;
  if (n === 0) return map;
  const { bytes: copy, start } = copyOf(block);
  const end = start + n;
  let pos = start;
  while (pos < end) {
    // [key kind u8][key len u32][key][value kind u8][value len u32][value]; lengths fit one byte.
    if (pos + 5 > end || copy[pos] !== 2 || copy[pos + 2] !== 0 || copy[pos + 3] !== 0 || copy[pos + 4] !== 0) return undefined;
    const keyLen = copy[pos + 1] as number;
    const keyStart = pos + 5;
    const valueAt = keyStart + keyLen;
    if (keyLen === 0 || valueAt + 5 > end || copy[valueAt + 2] !== 0 || copy[valueAt + 3] !== 0 || copy[valueAt + 4] !== 0) return undefined;
    const kind = headerKindFromCode(copy[valueAt] as number);
    const valueLen = copy[valueAt + 1] as number;
    const valueStart = valueAt + 5;
    pos = valueStart + valueLen;
    if (kind === undefined || valueLen === 0 || pos > end) return undefined;
    const fixedSize = FIXED_SIZE[kind];
    if ((fixedSize !== undefined && valueLen !== fixedSize) || (kind === 'bool' && (copy[valueStart] as number) > 1)) return undefined;
    const key = knownKey(copy, keyStart, keyLen);
    if (key === undefined || map.has(key)) return undefined;
    map.set(key, { kind, value: new Uint8Array(copy.buffer, valueStart, valueLen) });
  }
  return map;
}

/** Decodes entry by entry, each rule checked and reported by name (the errors callers see). */
function checkedHeaders(block: Uint8Array): Map<string, HeaderValue> {
  const map = new Map<string, HeaderValue>();
  for (const e of decodeUserHeaderEntries(block)) {
    if (e.keyKind !== 2) throw new IggyCodecError(`header key kind ${e.keyKind} is not string`, { context: { keyKind: e.keyKind } });
    const key = decodeUtf8(e.key, 'header key');
    const kind = headerKindFromCode(e.valueKind);
    if (kind === undefined) throw new IggyCodecError(`header ${JSON.stringify(key)} has unknown kind ${e.valueKind}`, { context: { key, valueKind: e.valueKind } });
    const problem = valueProblem(kind, e.value);
    if (problem !== undefined) throw new IggyCodecError(`header ${JSON.stringify(key)}: ${problem}`, { context: { key } });
    if (map.has(key)) throw new IggyCodecError(`duplicate header key ${JSON.stringify(key)}`, { context: { key } });
    map.set(key, { kind, value: ownCopy(e.value, 0, e.value.length) });
  }
  return map;
}

/** A copy of `length` bytes of `bytes` from `start`, in memory of its own (whatever subclass `bytes` is). */
function ownCopy(bytes: Uint8Array, start: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(bytes.subarray(start, start + length));
  return out;
}

/** A header key decoded before: its UTF-8 bytes and its text. */
interface KnownKey {
  readonly bytes: Uint8Array;
  readonly text: string;
}

// Records of one topic repeat a handful of header keys (`agdx.av`, `gen_ai.conversation.id`, ...):
// a key whose bytes were decoded before is matched byte for byte and its string reused, instead
// of a strict TextDecoder call per header of every record read. Bounded: a reader fed ever new
// keys empties it rather than letting it grow.
const KNOWN_KEYS = new Map<number, KnownKey[]>();
const KNOWN_KEYS_LIMIT = 256;
/** Keys per bucket: keys made to collide cost a few comparisons each, never a long scan. */
const BUCKET_LIMIT = 4;
let knownKeyCount = 0;

function sameBytes(a: Uint8Array, block: Uint8Array, start: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== block[start + i]) return false;
  return true;
}

/** The key at `block[start, start + length)` as text; `undefined` when it is not UTF-8. */
function knownKey(block: Uint8Array, start: number, length: number): string | undefined {
  // Length, first and last byte pick the bucket; the bytes themselves decide.
  const slot = length | ((block[start] as number) << 8) | ((block[start + length - 1] as number) << 16);
  const bucket = KNOWN_KEYS.get(slot);
  if (bucket !== undefined) {
    for (const known of bucket) if (sameBytes(known.bytes, block, start, length)) return known.text;
  }
  const bytes = ownCopy(block, start, length);
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  if (knownKeyCount >= KNOWN_KEYS_LIMIT) {
    KNOWN_KEYS.clear();
    knownKeyCount = 0;
  }
  const current = KNOWN_KEYS.get(slot);
  if (current === undefined) KNOWN_KEYS.set(slot, [{ bytes, text }]);
  else if (current.length < BUCKET_LIMIT) current.push({ bytes, text });
  else return text;
  knownKeyCount++;
  return text;
}

function fixed(kind: HeaderKind, size: number, write: (v: DataView) => void): HeaderValue {
  const value = new Uint8Array(size);
  write(new DataView(value.buffer));
  return { kind, value };
}

/** Builders for typed header values (little-endian, as Iggy stores them). */
export const headerValue: {
  readonly raw: (bytes: Uint8Array) => HeaderValue;
  readonly string: (text: string) => HeaderValue;
  readonly bool: (v: boolean) => HeaderValue;
  readonly int8: (v: number) => HeaderValue;
  readonly int16: (v: number) => HeaderValue;
  readonly int32: (v: number) => HeaderValue;
  readonly int64: (v: bigint) => HeaderValue;
  readonly int128: (v: bigint) => HeaderValue;
  readonly uint8: (v: number) => HeaderValue;
  readonly uint16: (v: number) => HeaderValue;
  readonly uint32: (v: number) => HeaderValue;
  readonly uint64: (v: bigint) => HeaderValue;
  readonly uint128: (v: bigint) => HeaderValue;
  readonly float32: (v: number) => HeaderValue;
  readonly float64: (v: number) => HeaderValue;
} = {
  raw: (bytes) => ({ kind: 'raw', value: bytes }),
  string: (text) => ({ kind: 'string', value: encodeUtf8(text) }),
  bool: (v) => ({ kind: 'bool', value: Uint8Array.of(v ? 1 : 0) }),
  int8: (v) => fixed('int8', 1, (d) => d.setInt8(0, v)),
  int16: (v) => fixed('int16', 2, (d) => d.setInt16(0, v, true)),
  int32: (v) => fixed('int32', 4, (d) => d.setInt32(0, v, true)),
  int64: (v) => fixed('int64', 8, (d) => d.setBigInt64(0, v, true)),
  int128: (v) => fixed('int128', 16, (d) => {
    d.setBigUint64(0, BigInt.asUintN(64, v), true);
    d.setBigInt64(8, BigInt.asIntN(64, v >> 64n), true);
  }),
  uint8: (v) => fixed('uint8', 1, (d) => d.setUint8(0, v)),
  uint16: (v) => fixed('uint16', 2, (d) => d.setUint16(0, v, true)),
  uint32: (v) => fixed('uint32', 4, (d) => d.setUint32(0, v, true)),
  uint64: (v) => fixed('uint64', 8, (d) => d.setBigUint64(0, v, true)),
  uint128: (v) => fixed('uint128', 16, (d) => {
    d.setBigUint64(0, BigInt.asUintN(64, v), true);
    d.setBigUint64(8, BigInt.asUintN(64, v >> 64n), true);
  }),
  float32: (v) => fixed('float32', 4, (d) => d.setFloat32(0, v, true)),
  float64: (v) => fixed('float64', 8, (d) => d.setFloat64(0, v, true)),
};
