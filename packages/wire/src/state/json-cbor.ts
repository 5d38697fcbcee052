import type { CborValue } from '../cbor/strict.js';
import { CodecError, InvalidError } from '../errors.js';
import { isJsonObject, type JsonValue } from './json-value.js';

const encoder = new TextEncoder();

function compareUtf8(a: string, b: string): number {
  const ea = encoder.encode(a);
  const eb = encoder.encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) if (ea[i] !== eb[i]) return (ea[i] as number) - (eb[i] as number);
  return ea.length - eb.length;
}

/**
 * JSON → CBOR for state records: objects become maps with keys sorted by UTF-8 byte order,
 * integral numbers integers (within ±(2^53−1), else InvalidError), other numbers floats.
 */
export function jsonToCbor(value: JsonValue): CborValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new InvalidError('state JSON numbers must be finite');
    if (Number.isInteger(value)) {
      if (!Number.isSafeInteger(value)) throw new InvalidError('state JSON integer is outside the exact number range');
      return BigInt(value);
    }
    return value;
  }
  if (Array.isArray(value)) return (value as readonly JsonValue[]).map(jsonToCbor);
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort(compareUtf8);
    return new Map<CborValue, CborValue>(keys.map((k) => [k, jsonToCbor(value[k] as JsonValue)]));
  }
  throw new InvalidError('state documents hold JSON values only');
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * CBOR → JSON for state records: text keys only, integers within ±(2^53−1) (CodecError
 * `state JSON integer is outside the exact number range` otherwise), no bytes.
 */
export function cborToJson(value: CborValue, surface = 'state document'): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') {
    if (value > SAFE || value < -SAFE) {
      throw new CodecError('state JSON integer is outside the exact number range', { context: { surface, operation: 'integer' } });
    }
    return Number(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CodecError(`non-finite number in ${surface}`, { context: { surface, operation: 'float' } });
    return value;
  }
  if (Array.isArray(value)) {
    // A plain loop: state documents are the largest capsules, and this runs once per item.
    const list = value as readonly CborValue[];
    const out = new Array<JsonValue>(list.length);
    for (let i = 0; i < list.length; i++) out[i] = cborToJson(list[i] as CborValue, surface);
    return out;
  }
  if (value instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of value as ReadonlyMap<CborValue, CborValue>) {
      if (typeof k !== 'string') throw new CodecError(`expected a string-keyed map in ${surface}`, { context: { surface, operation: 'expect-map' } });
      // `__proto__` must become an own property, not the prototype; every other key assigns plainly.
      if (k === '__proto__') Object.defineProperty(out, k, { value: cborToJson(v, surface), enumerable: true, writable: true, configurable: true });
      else out[k] = cborToJson(v, surface);
    }
    return out;
  }
  throw new CodecError(`cannot decode value in ${surface}`, { context: { surface, operation: 'value' } });
}
