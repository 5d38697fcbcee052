import { CodecError } from '../errors.js';
import { decodeStrictCbor, type CborValue, type StrictCborOptions } from './strict.js';

const U64_MAX = 0xffff_ffff_ffff_ffffn;

function describeLimit(max: bigint): string {
  return max === U64_MAX ? 'must be an unsigned integer' : `must be an unsigned integer at most ${max}`;
}

/** True when `value` is a decoded CBOR map. */
export function isCborMap(value: CborValue | undefined): value is ReadonlyMap<CborValue, CborValue> {
  return value instanceof Map;
}

/**
 * Typed access to the text-keyed fields of one decoded CBOR map, naming the field and the
 * surface (`body`, `body ref`, `fold snapshot.as_of`, ...) in every error. Unknown keys and
 * non-text keys are ignored, as AGDX readers do.
 */
export class FieldReader {
  /** The surface named in errors. */
  readonly surface: string;
  readonly #map: ReadonlyMap<CborValue, CborValue>;

  private constructor(map: ReadonlyMap<CborValue, CborValue>, surface: string) {
    this.#map = map;
    this.surface = surface;
  }

  /** Wraps a decoded value that must be a map (`expected a CBOR map for <surface>` otherwise). */
  static of(value: CborValue | undefined, surface: string): FieldReader {
    if (!isCborMap(value)) {
      throw new CodecError(`expected a CBOR map for ${surface}`, { context: { surface, operation: 'expect-map' } });
    }
    return new FieldReader(value, surface);
  }

  /** Strictly decodes `bytes` and wraps the top-level map. */
  static decode(bytes: Uint8Array, surface: string, options: StrictCborOptions = {}): FieldReader {
    return FieldReader.of(decodeStrictCbor(bytes, { surface, ...options }), surface);
  }

  /** The raw value under a text key, or undefined. */
  raw(key: string): CborValue | undefined {
    return this.#map.get(key);
  }

  /** True when the key is present. */
  has(key: string): boolean {
    return this.#map.has(key);
  }

  /** A typed decode error about `key` on this surface. */
  error(key: string, message: string): CodecError {
    return new CodecError(message, { context: { surface: this.surface, operation: key } });
  }

  #required(key: string): CborValue {
    const value = this.#map.get(key);
    if (value === undefined) throw this.error(key, `missing required field \`${key}\` in ${this.surface}`);
    return value;
  }

  /** An unsigned integer no larger than `max`, as bigint; undefined when absent. */
  uintOpt(key: string, max: bigint): bigint | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'bigint' || value < 0n || value > max) {
      throw this.error(key, `field \`${key}\` in ${this.surface} ${describeLimit(max)}`);
    }
    return value;
  }

  /** A required unsigned integer no larger than `max`, as bigint. */
  uint(key: string, max: bigint): bigint {
    this.#required(key);
    return this.uintOpt(key, max) as bigint;
  }

  /** Required u8 as a number. */
  u8(key: string): number {
    return Number(this.uint(key, 0xffn));
  }
  /** Optional u8 as a number. */
  u8Opt(key: string): number | undefined {
    const v = this.uintOpt(key, 0xffn);
    return v === undefined ? undefined : Number(v);
  }
  /** Optional u16 as a number. */
  u16Opt(key: string): number | undefined {
    const v = this.uintOpt(key, 0xffffn);
    return v === undefined ? undefined : Number(v);
  }
  /** Required u32 as a number. */
  u32(key: string): number {
    return Number(this.uint(key, 0xffff_ffffn));
  }
  /** Optional u32 as a number. */
  u32Opt(key: string): number | undefined {
    const v = this.uintOpt(key, 0xffff_ffffn);
    return v === undefined ? undefined : Number(v);
  }
  /** Required u64 as a bigint. */
  u64(key: string): bigint {
    return this.uint(key, U64_MAX);
  }
  /** Optional u64 as a bigint. */
  u64Opt(key: string): bigint | undefined {
    return this.uintOpt(key, U64_MAX);
  }

  /** Optional text (UTF-8 validity is enforced by the strict reader). */
  textOpt(key: string): string | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw this.error(key, `field \`${key}\` in ${this.surface} must be a string`);
    return value;
  }
  /** Required text. */
  text(key: string): string {
    this.#required(key);
    return this.textOpt(key) as string;
  }

  /** Optional bytes; with `length`, exactly that many (checked by the caller's own message otherwise). */
  bytesOpt(key: string): Uint8Array | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    if (!(value instanceof Uint8Array)) throw this.error(key, `field \`${key}\` in ${this.surface} must be bytes`);
    return value;
  }
  /** Required bytes. */
  bytes(key: string): Uint8Array {
    this.#required(key);
    return this.bytesOpt(key) as Uint8Array;
  }
  /** Required bytes of exactly `length` bytes. */
  fixedBytes(key: string, length: number): Uint8Array {
    const value = this.bytes(key);
    if (value.length !== length) {
      throw this.error(key, `field \`${key}\` in ${this.surface} must be ${length} bytes, got ${value.length}`);
    }
    return value;
  }

  /** Optional boolean. */
  boolOpt(key: string): boolean | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw this.error(key, `field \`${key}\` in ${this.surface} must be a boolean`);
    return value;
  }

  /** Optional array. */
  arrayOpt(key: string): readonly CborValue[] | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw this.error(key, `field \`${key}\` in ${this.surface} must be an array`);
    return value as readonly CborValue[];
  }
  /** Required array. */
  array(key: string): readonly CborValue[] {
    this.#required(key);
    return this.arrayOpt(key) as readonly CborValue[];
  }

  /** Optional nested map, wrapped for the nested surface `<surface>.<key>`. */
  mapOpt(key: string): FieldReader | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    return FieldReader.of(value, `${this.surface}.${key}`);
  }
  /** Required nested map. */
  map(key: string): FieldReader {
    const value = this.#map.get(key);
    return FieldReader.of(value, `${this.surface}.${key}`);
  }

  /** Every entry, in wire order. */
  entries(): IterableIterator<[CborValue, CborValue]> {
    return this.#map.entries();
  }
}
