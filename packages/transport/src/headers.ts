/**
 * Typed Iggy user headers. The shapes here are shared structurally with `@agdx/wire`, which
 * declares identical types, so a header map built by either package is accepted by the other.
 * Numbers are little-endian and strings UTF-8, exactly as Iggy stores them.
 */

import { InvalidArgumentError } from './errors.js';

/** The value kinds Iggy defines for user headers. */
export type HeaderKind =
  | 'raw'
  | 'string'
  | 'bool'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'int128'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'uint128'
  | 'float32'
  | 'float64';

/** One header value: its kind and its bytes as they travel on the wire. */
export interface HeaderValue {
  /** How the bytes are to be read. */
  readonly kind: HeaderKind;
  /** The value bytes: UTF-8 for strings, little-endian for numbers. */
  readonly value: Uint8Array;
}

/** A record's headers: string keys to typed values. */
export type RecordHeaders = ReadonlyMap<string, HeaderValue>;

/** The JavaScript value {@link readHeaderValue} gives for each kind. */
export type HeaderJsValue = string | boolean | number | bigint | Uint8Array;

/** Iggy's numeric code for each header kind (the byte on the wire). */
export const HEADER_KIND_CODES: Readonly<Record<HeaderKind, number>> = Object.freeze({
  raw: 1,
  string: 2,
  bool: 3,
  int8: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  int128: 8,
  uint8: 9,
  uint16: 10,
  uint32: 11,
  uint64: 12,
  uint128: 13,
  float32: 14,
  float64: 15,
});

/** Every header kind, in Iggy code order. */
export const HEADER_KINDS: readonly HeaderKind[] = Object.freeze(Object.keys(HEADER_KIND_CODES) as HeaderKind[]);

/** Fixed byte width of each numeric kind; raw and string are variable (1..255). */
const WIDTHS: Readonly<Record<HeaderKind, number>> = {
  raw: 0,
  string: 0,
  bool: 1,
  int8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
  int128: 16,
  uint8: 1,
  uint16: 2,
  uint32: 4,
  uint64: 8,
  uint128: 16,
  float32: 4,
  float64: 8,
};

/** Iggy's bounds on one key or variable-length value. */
export const MAX_HEADER_PART_BYTES = 255;
/** Iggy's bound on a record's whole encoded header block (`MAX_USER_HEADERS_SIZE`). */
export const MAX_HEADER_BLOCK_BYTES = 100_000;
/** Framing bytes of one encoded pair: two kind bytes and two u32 lengths. */
const PAIR_FRAMING_BYTES = 10;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A copy of `bytes` as a plain Uint8Array. `bytes.slice()` would not do: on a Node Buffer,
 * `slice` returns a view that shares memory with the caller.
 */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

function invalid(message: string, context?: Record<string, unknown>): InvalidArgumentError {
  return new InvalidArgumentError(message, context === undefined ? undefined : { context });
}

/**
 * UTF-8 bytes of `text`, refusing strings that would not survive a round trip (lone surrogates
 * turn into U+FFFD when encoded).
 */
export function utf8(text: string, what: string): Uint8Array {
  if (typeof text !== 'string') throw invalid(`${what} must be a string`);
  if (LONE_SURROGATE.test(text)) throw invalid(`${what} is not well-formed Unicode`);
  return encoder.encode(text);
}

function intValue(kind: HeaderKind, value: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${kind} header value must be an integer in ${min}..${max}`, { kind });
  }
  return value;
}

function bigValue(kind: HeaderKind, value: bigint | number, bits: number, signed: boolean): bigint {
  let big: bigint;
  if (typeof value === 'bigint') big = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) big = BigInt(value);
  else throw invalid(`${kind} header value must be a bigint or a safe integer`, { kind });
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (big < min || big > max) throw invalid(`${kind} header value is out of range ${min}..${max}`, { kind });
  return big;
}

function littleEndian(value: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let v = BigInt.asUintN(bytes * 8, value);
  for (let i = 0; i < bytes; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function fromLittleEndian(bytes: Uint8Array, signed: boolean): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i] ?? 0);
  return signed ? BigInt.asIntN(bytes.length * 8, v) : v;
}

function fixed(kind: HeaderKind, width: number, write: (view: DataView) => void): HeaderValue {
  const value = new Uint8Array(width);
  write(new DataView(value.buffer));
  return { kind, value };
}

/** Builders for header values of every kind; each validates its input and copies bytes. */
export const headerValue: {
  /** Opaque bytes, 1..255 long (copied). */
  readonly raw: (bytes: Uint8Array) => HeaderValue;
  /** A UTF-8 string of 1..255 bytes. */
  readonly string: (text: string) => HeaderValue;
  /** A boolean, stored as one byte 0 or 1. */
  readonly bool: (value: boolean) => HeaderValue;
  /** A signed 8-bit integer. */
  readonly int8: (value: number) => HeaderValue;
  /** A signed 16-bit integer. */
  readonly int16: (value: number) => HeaderValue;
  /** A signed 32-bit integer. */
  readonly int32: (value: number) => HeaderValue;
  /** A signed 64-bit integer. */
  readonly int64: (value: bigint | number) => HeaderValue;
  /** A signed 128-bit integer. */
  readonly int128: (value: bigint | number) => HeaderValue;
  /** An unsigned 8-bit integer. */
  readonly uint8: (value: number) => HeaderValue;
  /** An unsigned 16-bit integer. */
  readonly uint16: (value: number) => HeaderValue;
  /** An unsigned 32-bit integer. */
  readonly uint32: (value: number) => HeaderValue;
  /** An unsigned 64-bit integer. */
  readonly uint64: (value: bigint | number) => HeaderValue;
  /** An unsigned 128-bit integer. */
  readonly uint128: (value: bigint | number) => HeaderValue;
  /** An IEEE-754 single (the number is rounded to single precision). */
  readonly float32: (value: number) => HeaderValue;
  /** An IEEE-754 double. */
  readonly float64: (value: number) => HeaderValue;
} = Object.freeze({
  raw(bytes: Uint8Array): HeaderValue {
    if (!(bytes instanceof Uint8Array)) throw invalid('raw header value must be a Uint8Array');
    return checkHeaderValue({ kind: 'raw', value: copyBytes(bytes) });
  },
  string(text: string): HeaderValue {
    return checkHeaderValue({ kind: 'string', value: utf8(text, 'string header value') });
  },
  bool(value: boolean): HeaderValue {
    if (typeof value !== 'boolean') throw invalid('bool header value must be a boolean');
    return { kind: 'bool', value: Uint8Array.of(value ? 1 : 0) };
  },
  int8: (v: number): HeaderValue => fixed('int8', 1, (d) => d.setInt8(0, intValue('int8', v, -0x80, 0x7f))),
  int16: (v: number): HeaderValue => fixed('int16', 2, (d) => d.setInt16(0, intValue('int16', v, -0x8000, 0x7fff), true)),
  int32: (v: number): HeaderValue =>
    fixed('int32', 4, (d) => d.setInt32(0, intValue('int32', v, -0x8000_0000, 0x7fff_ffff), true)),
  int64: (v: bigint | number): HeaderValue => ({ kind: 'int64', value: littleEndian(bigValue('int64', v, 64, true), 8) }),
  int128: (v: bigint | number): HeaderValue => ({
    kind: 'int128',
    value: littleEndian(bigValue('int128', v, 128, true), 16),
  }),
  uint8: (v: number): HeaderValue => fixed('uint8', 1, (d) => d.setUint8(0, intValue('uint8', v, 0, 0xff))),
  uint16: (v: number): HeaderValue => fixed('uint16', 2, (d) => d.setUint16(0, intValue('uint16', v, 0, 0xffff), true)),
  uint32: (v: number): HeaderValue =>
    fixed('uint32', 4, (d) => d.setUint32(0, intValue('uint32', v, 0, 0xffff_ffff), true)),
  uint64: (v: bigint | number): HeaderValue => ({
    kind: 'uint64',
    value: littleEndian(bigValue('uint64', v, 64, false), 8),
  }),
  uint128: (v: bigint | number): HeaderValue => ({
    kind: 'uint128',
    value: littleEndian(bigValue('uint128', v, 128, false), 16),
  }),
  float32(v: number): HeaderValue {
    if (typeof v !== 'number') throw invalid('float32 header value must be a number');
    return fixed('float32', 4, (d) => d.setFloat32(0, v, true));
  },
  float64(v: number): HeaderValue {
    if (typeof v !== 'number') throw invalid('float64 header value must be a number');
    return fixed('float64', 8, (d) => d.setFloat64(0, v, true));
  },
});

/** True when `kind` is one of the fifteen Iggy header kinds. */
export function isHeaderKind(kind: unknown): kind is HeaderKind {
  return typeof kind === 'string' && Object.hasOwn(HEADER_KIND_CODES, kind);
}

/**
 * Checks a header value against Iggy's rules (known kind; 1..255 bytes for raw and string, valid
 * UTF-8 for string; the exact width for numbers; 0 or 1 for bool) and returns it unchanged.
 * Throws {@link InvalidArgumentError} otherwise.
 */
export function checkHeaderValue(header: HeaderValue): HeaderValue {
  if (typeof header !== 'object' || header === null) throw invalid('header value must be an object');
  const { kind, value } = header;
  if (!isHeaderKind(kind)) throw invalid('unknown header kind', { kind: String(kind) });
  if (!(value instanceof Uint8Array)) throw invalid('header value bytes must be a Uint8Array', { kind });
  const width = WIDTHS[kind];
  if (width === 0) {
    if (value.length < 1 || value.length > MAX_HEADER_PART_BYTES) {
      throw invalid(`${kind} header value must be 1..${MAX_HEADER_PART_BYTES} bytes`, { kind, length: value.length });
    }
    if (kind === 'string') {
      try {
        strictDecoder.decode(value);
      } catch (cause) {
        throw new InvalidArgumentError('string header value is not valid UTF-8', { cause, context: { kind } });
      }
    }
  } else if (value.length !== width) {
    throw invalid(`${kind} header value must be exactly ${width} bytes`, { kind, length: value.length });
  } else if (kind === 'bool' && value[0] !== 0 && value[0] !== 1) {
    throw invalid('bool header value must be 0 or 1', { kind });
  }
  return header;
}

/**
 * Reads a header value as a JavaScript value: `string` for string, `boolean` for bool, `number`
 * for 8..32-bit integers and floats, `bigint` for 64- and 128-bit integers, a copy of the bytes
 * for raw. Throws {@link InvalidArgumentError} when the bytes break the kind's rules.
 */
export function readHeaderValue(header: HeaderValue): HeaderJsValue {
  checkHeaderValue(header);
  const { kind, value } = header;
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  switch (kind) {
    case 'raw':
      return copyBytes(value);
    case 'string':
      return strictDecoder.decode(value);
    case 'bool':
      return value[0] === 1;
    case 'int8':
      return view.getInt8(0);
    case 'int16':
      return view.getInt16(0, true);
    case 'int32':
      return view.getInt32(0, true);
    case 'uint8':
      return view.getUint8(0);
    case 'uint16':
      return view.getUint16(0, true);
    case 'uint32':
      return view.getUint32(0, true);
    case 'int64':
      return view.getBigInt64(0, true);
    case 'uint64':
      return view.getBigUint64(0, true);
    case 'int128':
      return fromLittleEndian(value, true);
    case 'uint128':
      return fromLittleEndian(value, false);
    case 'float32':
      return view.getFloat32(0, true);
    case 'float64':
      return view.getFloat64(0, true);
  }
}

const keyLengths = new Map<string, number>();
const KEY_CACHE_LIMIT = 4096;

/** UTF-8 length of a header key, validated once and cached: keys repeat on every record. */
function keyByteLength(key: string): number {
  const cached = keyLengths.get(key);
  if (cached !== undefined) return cached;
  const length = utf8(key, 'header key').length;
  if (length < 1 || length > MAX_HEADER_PART_BYTES) {
    throw invalid(`header key must be 1..${MAX_HEADER_PART_BYTES} UTF-8 bytes`, { length });
  }
  if (keyLengths.size >= KEY_CACHE_LIMIT) keyLengths.clear();
  keyLengths.set(key, length);
  return length;
}

/**
 * The encoded size of a header map that already passed {@link copyRecordHeaders} (or was
 * sealed): what the map adds to a batch's size (see `batch-limit.ts`).
 */
export function headerBlockBytes(headers: RecordHeaders): number {
  let total = 0;
  for (const [key, header] of headers) total += PAIR_FRAMING_BYTES + keyByteLength(key) + header.value.length;
  return total;
}

/**
 * Validates a whole header map (keys 1..255 UTF-8 bytes, every value per
 * {@link checkHeaderValue}, encoded block at most 100,000 bytes) and returns a deep copy, so
 * later changes by the caller cannot reach stored records.
 */
export function copyRecordHeaders(headers: RecordHeaders): RecordHeaders {
  if (typeof headers !== 'object' || headers === null || typeof headers.entries !== 'function') {
    throw invalid('headers must be a Map of string keys to header values');
  }
  let total = 0;
  let valueBytes = 0;
  for (const [key, header] of headers.entries()) {
    checkHeaderValue(header);
    total += PAIR_FRAMING_BYTES + keyByteLength(key) + header.value.length;
    valueBytes += header.value.length;
  }
  if (total > MAX_HEADER_BLOCK_BYTES) {
    throw invalid(`headers encode to ${total} bytes, above the ${MAX_HEADER_BLOCK_BYTES}-byte limit`, { total });
  }
  // One allocation holds every value (views into it), instead of one small array per header.
  const store = new Uint8Array(valueBytes);
  const copy = new Map<string, HeaderValue>();
  let at = 0;
  for (const [key, header] of headers.entries()) {
    const value = header.value;
    store.set(value, at);
    copy.set(key, { kind: header.kind, value: store.subarray(at, at + value.length) });
    at += value.length;
  }
  return copy;
}
