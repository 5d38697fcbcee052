import { encode } from 'cbor2';
import { AgdxError, CodecError } from '../errors.js';
import { CborLimitError } from '../codec/reader.js';
import { decodeStrictItem } from './strict-decoder.js';

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
  /**
   * Most CBOR data items in the input (a map entry counts as two). Default 65,536. A declared
   * array or map count beyond what is left is refused at its head, before anything is allocated.
   */
  readonly maxItems?: number;
}

/** Default input cap of the strict reader: capsules are small, claim-checked bodies are not inline. */
export const DEFAULT_MAX_CBOR_BYTES: number = 16 * 1024 * 1024;
/** Default nesting cap of the strict reader. */
export const DEFAULT_MAX_CBOR_DEPTH: number = 64;
/**
 * Default item cap of the strict reader: far above any capsule's schema (the largest, a 2,048-session
 * heartbeat, is about 2,060 items) while a refusal or a full decode stays within a few milliseconds.
 */
export const DEFAULT_MAX_CBOR_ITEMS = 65_536;

/**
 * Decodes exactly one CBOR item under the AGDX strict profile: no trailing bytes, no duplicate
 * map keys, shortest-form heads only, no indefinite lengths, no tags, no simple values other than
 * `true`/`false`/`null`, valid UTF-8, bounded size, depth and item count. Every declared length and
 * count is checked against the bytes left and the caps before anything is allocated, so time and
 * memory are bounded by the caps, not by what the input claims. Every failure becomes a
 * {@link CodecError} (`context.limit` and `context.cap` name a crossed cap).
 */
export function decodeStrictCbor(bytes: Uint8Array, options: StrictCborOptions = {}): CborValue {
  const surface = options.surface ?? 'CBOR item';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CBOR_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_CBOR_DEPTH;
  const maxItems = options.maxItems ?? DEFAULT_MAX_CBOR_ITEMS;
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
    return decodeStrictItem(bytes, { maxDepth, maxItems });
  } catch (error) {
    const context: Record<string, unknown> = { surface, operation: 'decode' };
    if (error instanceof CborLimitError) {
      context['limit'] = error.limit;
      context['cap'] = error.cap;
    }
    throw new CodecError(`failed to decode ${surface}`, { context, cause: error });
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
