import { CodecError, InvalidError } from '../errors.js';

/** The Iggy user-header value kinds (same shape as `@agdx/transport`'s type). */
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

/** One Iggy header value: its kind and the exact bytes Iggy carries (numbers little-endian, strings UTF-8). */
export interface HeaderValue {
  /** The Iggy value kind. */
  readonly kind: HeaderKind;
  /** The value bytes. */
  readonly value: Uint8Array;
}

/** A record's user headers, keyed by header name. */
export type RecordHeaders = ReadonlyMap<string, HeaderValue>;

/** Iggy's numeric code for each header kind. */
export const HEADER_KIND_CODES: Readonly<Record<HeaderKind, number>> = {
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
};

/** The header kind for an Iggy numeric code, or undefined for an unknown code. */
export function headerKindFromCode(code: number): HeaderKind | undefined {
  for (const [kind, value] of Object.entries(HEADER_KIND_CODES)) if (value === code) return kind as HeaderKind;
  return undefined;
}

const WIDTH: Partial<Record<HeaderKind, number>> = {
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

const encoder = new TextEncoder();
// ignoreBOM: a value that starts with U+FEFF reads back with it (the default decoder drops it).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function fixedInt(kind: HeaderKind, value: bigint, signed: boolean, width: number): HeaderValue {
  const bits = BigInt(width * 8);
  const min = signed ? -(1n << (bits - 1n)) : 0n;
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (typeof value !== 'bigint' || value < min || value > max) {
    throw new InvalidError(`${kind} header value ${String(value)} is out of range`, { context: { kind } });
  }
  let v = BigInt.asUintN(Number(bits), value);
  const out = new Uint8Array(width);
  for (let i = 0; i < width; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return { kind, value: out };
}

function toBig(value: number | bigint, kind: HeaderKind): bigint {
  if (typeof value === 'bigint') return value;
  if (!Number.isSafeInteger(value)) throw new InvalidError(`${kind} header value ${value} is not an integer`, { context: { kind } });
  return BigInt(value);
}

/** A `raw` header (bytes copied). */
export function rawHeader(bytes: Uint8Array): HeaderValue {
  return { kind: 'raw', value: new Uint8Array(bytes) };
}
/** A `string` header (UTF-8). */
export function stringHeader(text: string): HeaderValue {
  return { kind: 'string', value: encoder.encode(text) };
}
/** A `bool` header (one byte, 0 or 1). */
export function boolHeader(value: boolean): HeaderValue {
  return { kind: 'bool', value: Uint8Array.of(value ? 1 : 0) };
}
/** An `int8` header. */
export function int8Header(value: number): HeaderValue {
  return fixedInt('int8', toBig(value, 'int8'), true, 1);
}
/** An `int16` header (little-endian). */
export function int16Header(value: number): HeaderValue {
  return fixedInt('int16', toBig(value, 'int16'), true, 2);
}
/** An `int32` header (little-endian). */
export function int32Header(value: number): HeaderValue {
  return fixedInt('int32', toBig(value, 'int32'), true, 4);
}
/** An `int64` header (little-endian). */
export function int64Header(value: bigint | number): HeaderValue {
  return fixedInt('int64', toBig(value, 'int64'), true, 8);
}
/** An `int128` header (little-endian). */
export function int128Header(value: bigint): HeaderValue {
  return fixedInt('int128', toBig(value, 'int128'), true, 16);
}
/** A `uint8` header. */
export function uint8Header(value: number): HeaderValue {
  return fixedInt('uint8', toBig(value, 'uint8'), false, 1);
}
/** A `uint16` header (little-endian). */
export function uint16Header(value: number): HeaderValue {
  return fixedInt('uint16', toBig(value, 'uint16'), false, 2);
}
/** A `uint32` header (little-endian). */
export function uint32Header(value: number): HeaderValue {
  return fixedInt('uint32', toBig(value, 'uint32'), false, 4);
}
/** A `uint64` header (little-endian). */
export function uint64Header(value: bigint | number): HeaderValue {
  return fixedInt('uint64', toBig(value, 'uint64'), false, 8);
}
/** A `uint128` header (little-endian), the older form of the conversation header. */
export function uint128Header(value: bigint): HeaderValue {
  return fixedInt('uint128', toBig(value, 'uint128'), false, 16);
}
/** A `float32` header (IEEE-754 little-endian); the value is rounded to single precision. */
export function float32Header(value: number): HeaderValue {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setFloat32(0, value, true);
  return { kind: 'float32', value: out };
}
/** A `float64` header (IEEE-754 little-endian). */
export function float64Header(value: number): HeaderValue {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setFloat64(0, value, true);
  return { kind: 'float64', value: out };
}

/** The error every header reader raises: `invalid value for header `name``. */
export function invalidHeader(name: string): CodecError {
  return new CodecError(`invalid value for header \`${name}\``, { context: { surface: 'headers', operation: name } });
}

function expect(value: HeaderValue, kind: HeaderKind, name: string): Uint8Array {
  if (value === null || typeof value !== 'object' || value.kind !== kind || !(value.value instanceof Uint8Array)) throw invalidHeader(name);
  const width = WIDTH[kind];
  if (width !== undefined && value.value.length !== width) throw invalidHeader(name);
  return value.value;
}

function readLe(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i] as number);
  return v;
}

/** Reads a `raw` header. */
export function readRawHeader(value: HeaderValue, name: string): Uint8Array {
  return new Uint8Array(expect(value, 'raw', name));
}
/** Reads a `string` header (invalid UTF-8 is a CodecError). */
export function readStringHeader(value: HeaderValue, name: string): string {
  const bytes = expect(value, 'string', name);
  try {
    return decoder.decode(bytes);
  } catch {
    throw invalidHeader(name);
  }
}
/** Reads a `bool` header (only bytes 0 and 1 are accepted). */
export function readBoolHeader(value: HeaderValue, name: string): boolean {
  const b = expect(value, 'bool', name)[0];
  if (b !== 0 && b !== 1) throw invalidHeader(name);
  return b === 1;
}
/** Reads any integer header kind as a bigint (signed kinds are sign-extended). */
export function readIntegerHeader(value: HeaderValue, name: string, kind: HeaderKind): bigint {
  const bytes = expect(value, kind, name);
  if (kind === 'raw' || kind === 'string' || kind === 'bool' || kind === 'float32' || kind === 'float64') throw invalidHeader(name);
  const raw = readLe(bytes);
  return kind.startsWith('int') ? BigInt.asIntN(bytes.length * 8, raw) : raw;
}
/** Reads an `int8` header. */
export function readInt8Header(value: HeaderValue, name: string): number {
  return Number(readIntegerHeader(value, name, 'int8'));
}
/** Reads an `int16` header. */
export function readInt16Header(value: HeaderValue, name: string): number {
  return Number(readIntegerHeader(value, name, 'int16'));
}
/** Reads an `int32` header. */
export function readInt32Header(value: HeaderValue, name: string): number {
  return Number(readIntegerHeader(value, name, 'int32'));
}
/** Reads an `int64` header. */
export function readInt64Header(value: HeaderValue, name: string): bigint {
  return readIntegerHeader(value, name, 'int64');
}
/** Reads an `int128` header. */
export function readInt128Header(value: HeaderValue, name: string): bigint {
  return readIntegerHeader(value, name, 'int128');
}
/** Reads a `uint8` header. */
export function readUint8Header(value: HeaderValue, name: string): number {
  return Number(readIntegerHeader(value, name, 'uint8'));
}
/** Reads a `uint16` header. */
export function readUint16Header(value: HeaderValue, name: string): number {
  return Number(readIntegerHeader(value, name, 'uint16'));
}
/** Reads a `uint32` header. */
export function readUint32Header(value: HeaderValue, name: string): number {
  return Number(readIntegerHeader(value, name, 'uint32'));
}
/** Reads a `uint64` header. */
export function readUint64Header(value: HeaderValue, name: string): bigint {
  return readIntegerHeader(value, name, 'uint64');
}
/** Reads a `uint128` header. */
export function readUint128Header(value: HeaderValue, name: string): bigint {
  return readIntegerHeader(value, name, 'uint128');
}
/** Reads a `float32` header. */
export function readFloat32Header(value: HeaderValue, name: string): number {
  const bytes = expect(value, 'float32', name);
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getFloat32(0, true);
}
/** Reads a `float64` header. */
export function readFloat64Header(value: HeaderValue, name: string): number {
  const bytes = expect(value, 'float64', name);
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
}
