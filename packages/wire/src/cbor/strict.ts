import { decode, encode, Tag } from 'cbor2';
import { AgdxError, CodecError } from '../errors.js';

/**
 * A decoded CBOR item as the strict reader hands it out: integers are always `bigint`, floats
 * always `number`, byte strings fresh `Uint8Array` copies, maps always `Map` (keys of any type).
 */
export type CborValue =
  | bigint
  | number
  | string
  | boolean
  | null
  | Uint8Array
  | readonly CborValue[]
  | ReadonlyMap<CborValue, CborValue>;

/** Limits applied by {@link decodeStrictCbor}. */
export interface StrictCborOptions {
  /** Name of what is being decoded, used in error messages (`failed to decode <surface>`). */
  readonly surface?: string;
  /** Largest accepted input, in bytes. Default 16 MiB. */
  readonly maxBytes?: number;
  /** Deepest accepted nesting. Default 64. */
  readonly maxDepth?: number;
}

/** Default input cap of the strict reader: capsules are small, claim-checked bodies are not inline. */
export const DEFAULT_MAX_CBOR_BYTES: number = 16 * 1024 * 1024;
/** Default nesting cap of the strict reader. */
export const DEFAULT_MAX_CBOR_DEPTH: number = 64;

const DECODE_OPTIONS = {
  preferMap: true,
  preferBigInt: true,
  rejectDuplicateKeys: true,
  rejectStreaming: true,
  requirePreferred: true,
  rejectUndefined: true,
  rejectSimple: true,
  ignoreGlobalTags: true,
} as const;

// cbor2 hands byte strings out as views into the input; copying keeps the caller free to reuse
// its buffer, and the walk also turns any surviving tag (every tag is unknown to AGDX) into an error.
function normalise(value: unknown, depth: number, maxDepth: number): CborValue {
  if (depth > maxDepth) throw new Error(`nesting deeper than ${maxDepth}`);
  if (value === null || typeof value === 'bigint' || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    return value;
  }
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map((item) => normalise(item, depth + 1, maxDepth));
  if (value instanceof Map) {
    const out = new Map<CborValue, CborValue>();
    for (const [k, v] of value) out.set(normalise(k, depth + 1, maxDepth), normalise(v, depth + 1, maxDepth));
    return out;
  }
  if (value instanceof Tag) throw new Error(`tag ${String(value.tag)} not supported`);
  throw new Error('unsupported CBOR item');
}

/**
 * Decodes exactly one CBOR item under the AGDX strict profile: no trailing bytes, no duplicate
 * map keys, shortest-form heads only, no indefinite lengths, no tags, no simple values other than
 * `true`/`false`/`null`, valid UTF-8, bounded size and depth. Every failure, including the plain
 * `RangeError`/`TypeError` cbor2 throws on truncated input, becomes a {@link CodecError}.
 */
export function decodeStrictCbor(bytes: Uint8Array, options: StrictCborOptions = {}): CborValue {
  const surface = options.surface ?? 'CBOR item';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CBOR_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_CBOR_DEPTH;
  if (!(bytes instanceof Uint8Array)) {
    throw new CodecError(`failed to decode ${surface}`, { context: { surface, operation: 'decode' }, cause: new TypeError('expected bytes') });
  }
  if (bytes.length > maxBytes) {
    throw new CodecError(`failed to decode ${surface}`, {
      context: { surface, operation: 'decode', bytes: bytes.length, cap: maxBytes },
      cause: new Error(`input is ${bytes.length}B, exceeds cap ${maxBytes}B`),
    });
  }
  try {
    return normalise(decode(bytes, { ...DECODE_OPTIONS, maxDepth: maxDepth + 1 }), 0, maxDepth);
  } catch (error) {
    throw new CodecError(`failed to decode ${surface}`, { context: { surface, operation: 'decode' }, cause: error });
  }
}

// A Uint8Array subclass (Node's Buffer) would be encoded through toJSON as a map: rebuild as plain.
function plainBytes(value: CborValue): CborValue {
  if (value instanceof Uint8Array) return value.constructor === Uint8Array ? value : new Uint8Array(value);
  if (Array.isArray(value)) return (value as readonly CborValue[]).map(plainBytes);
  if (value instanceof Map) {
    const out = new Map<CborValue, CborValue>();
    for (const [k, v] of value as ReadonlyMap<CborValue, CborValue>) out.set(plainBytes(k), plainBytes(v));
    return out;
  }
  return value;
}

/**
 * Encodes a value the way every AGDX capsule is written: definite lengths, shortest heads, map
 * keys in insertion order. A `bigint` becomes a CBOR integer and a `number` always a float
 * (shortest lossless width), so an integral float such as `2.0` stays a float.
 * Only `Uint8Array` may stand for bytes (a Node Buffer would be written as a map).
 */
export function encodeCbor(value: CborValue): Uint8Array {
  try {
    return encode(plainBytes(value) as never, { avoidInts: true });
  } catch (error) {
    if (AgdxError.is(error)) throw error;
    throw new CodecError('failed to encode CBOR item', { context: { operation: 'encode' }, cause: error });
  }
}
