import { CodecError } from '../errors.js';
import type { CborValue } from './strict.js';

import type { Metadata, MetadataValue } from '../envelope/metadata.js';

/** A metadata-style value (the AGDX `Value`): CBOR integers are `bigint`, CBOR floats `number`. */
export type DetailValue = MetadataValue;

/** An ordered text-keyed map of values (insertion order = wire order). */
export type DetailMap = Metadata;

const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

function toValue(value: CborValue, surface: string): DetailValue {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'bigint') {
    if (value < I64_MIN || value > U64_MAX) throw cannot(surface);
    return value;
  }
  if (Array.isArray(value)) return (value as readonly CborValue[]).map((item) => toValue(item, surface));
  throw cannot(surface);
}

function cannot(surface: string): CodecError {
  return new CodecError(`cannot decode value in ${surface}`, { context: { surface, operation: 'value' } });
}

/** Reads a decoded CBOR map into a {@link DetailMap}; `<surface>.<key>` is named on a bad value. */
export function readDetailMap(value: CborValue, surface: string): DetailMap {
  if (!(value instanceof Map)) {
    throw new CodecError(`expected a string-keyed map in ${surface}`, { context: { surface, operation: 'expect-map' } });
  }
  const out = new Map<string, DetailValue>();
  for (const [key, item] of value as ReadonlyMap<CborValue, CborValue>) {
    if (typeof key !== 'string') {
      throw new CodecError(`expected a string-keyed map in ${surface}`, { context: { surface, operation: 'expect-map' } });
    }
    out.set(key, toValue(item, `${surface}.${key}`));
  }
  return out;
}

/** The CBOR shape of a {@link DetailValue} (bigints stay integers, numbers stay floats). */
export function detailValueToCbor(value: DetailValue): CborValue {
  if (Array.isArray(value)) return (value as readonly DetailValue[]).map(detailValueToCbor);
  return value as CborValue;
}

/** The CBOR shape of a {@link DetailMap}, keys in insertion order. */
export function detailMapToCbor(map: DetailMap): Map<CborValue, CborValue> {
  const out = new Map<CborValue, CborValue>();
  for (const [key, value] of map) out.set(key, detailValueToCbor(value));
  return out;
}
