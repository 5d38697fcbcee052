import { InvalidError } from '../errors.js';
import { utf8Length } from '../ids/utf8.js';
import type { MetadataValue } from './metadata.js';

/** Most metadata entries per envelope. */
export const MAX_METADATA_ENTRIES = 32;
/** Cap on one metadata key, in UTF-8 bytes. */
export const MAX_METADATA_KEY_BYTES = 256;
/** Cap on one metadata value (size rule: strings by UTF-8 length, lists Σ(1 + item), scalars 9). */
export const MAX_METADATA_VALUE_BYTES = 1024;
/** Cap on all metadata keys plus values. */
export const MAX_METADATA_TOTAL_BYTES = 8192;
/** Size of a scalar metadata value under the cap rule. @internal */
export const METADATA_SCALAR_SIZE = 9;
/** Deepest list nesting a metadata value may have. @internal */
export const MAX_METADATA_DEPTH = 64;

const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

function invalid(field: string, reason: string): InvalidError {
  return new InvalidError(`\`${field}\`: ${reason}`, { context: { field } });
}

/** The seed-worded cap error: `` `field` is NB, exceeds cap CB `` (`at least` while still decoding). @internal */
export function overCap(field: string, size: number, cap: number, atLeast = false): InvalidError {
  const is = atLeast ? 'is at least' : 'is';
  return new InvalidError(`\`${field}\` ${is} ${size}B, exceeds cap ${cap}B`, { context: { field, size, cap } });
}

/** Refuses more than {@link MAX_METADATA_ENTRIES} entries (the decoder calls it as soon as the count is read). @internal */
export function checkMetadataEntryCount(size: number): void {
  if (size > MAX_METADATA_ENTRIES) {
    throw new InvalidError(`\`metadata\` is ${size} entries, exceeds cap ${MAX_METADATA_ENTRIES}`, {
      context: { field: 'metadata', size, cap: MAX_METADATA_ENTRIES },
    });
  }
}

/** Refuses a metadata key over {@link MAX_METADATA_KEY_BYTES}; returns its size. @internal */
export function checkMetadataKey(key: string): number {
  const size = utf8Length(key);
  if (size > MAX_METADATA_KEY_BYTES) throw overCap('metadata key', size, MAX_METADATA_KEY_BYTES);
  return size;
}

/** Refuses a value size over {@link MAX_METADATA_VALUE_BYTES}. @internal */
export function checkMetadataValueSize(size: number): void {
  if (size > MAX_METADATA_VALUE_BYTES) throw overCap('metadata value', size, MAX_METADATA_VALUE_BYTES);
}

/** Refuses a keys-plus-values total over {@link MAX_METADATA_TOTAL_BYTES}. @internal */
export function checkMetadataTotal(total: number): void {
  if (total > MAX_METADATA_TOTAL_BYTES) throw overCap('metadata', total, MAX_METADATA_TOTAL_BYTES);
}

/**
 * Size of a metadata value under the cap rule (strings by bytes, lists Σ(1 + item), scalars 9).
 * @throws InvalidError for a value metadata cannot carry (not a string, integer within
 * −2^63 … 2^64 − 1, float, boolean, null or list).
 */
export function metadataValueSize(v: MetadataValue, depth = 0): number {
  switch (typeof v) {
    case 'string':
      return utf8Length(v);
    case 'bigint':
      if (v < I64_MIN || v > U64_MAX) throw invalid('metadata value', 'integers must fit i64 or u64');
      return METADATA_SCALAR_SIZE;
    case 'number':
    case 'boolean':
      return METADATA_SCALAR_SIZE;
    default:
      if (v === null) return METADATA_SCALAR_SIZE;
      if (Array.isArray(v) && depth < MAX_METADATA_DEPTH) {
        const list = v as readonly MetadataValue[];
        let n = 0;
        for (let i = 0; i < list.length; i++) n += 1 + metadataValueSize(list[i] as MetadataValue, depth + 1);
        return n;
      }
      throw invalid('metadata value', 'must be a string, integer, float, boolean, null or list');
  }
}
