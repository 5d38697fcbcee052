import { InvalidError } from '../errors.js';
import { utf8Length } from '../ids/utf8.js';
import type { Metadata, MetadataValue } from './metadata.js';

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
  return valueSize(v, depth, utf8Length);
}

/** Most UTF-8 bytes one UTF-16 unit can stand for (a surrogate pair's 4 bytes are 2 per unit). */
const MAX_UTF8_PER_UNIT = 3;

/** A string's UTF-8 size bounded from above without scanning it. */
function utf8LengthBound(s: string): number {
  return s.length * MAX_UTF8_PER_UNIT;
}

/**
 * {@link metadataValueSize} with each string counted at its most UTF-8 bytes (3 per UTF-16 unit)
 * instead of scanned: the same refusals, thrown in the same order, at no cost per character.
 */
function metadataValueSizeBound(v: MetadataValue): number {
  return valueSize(v, 0, utf8LengthBound);
}

/** The cap-rule size of `v`, strings measured by `stringSize`; one walk for the exact size and the bound. */
function valueSize(v: MetadataValue, depth: number, stringSize: (s: string) => number): number {
  switch (typeof v) {
    case 'string':
      return stringSize(v);
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
        for (let i = 0; i < list.length; i++) n += 1 + valueSize(list[i] as MetadataValue, depth + 1, stringSize);
        return n;
      }
      throw invalid('metadata value', 'must be a string, integer, float, boolean, null or list');
  }
}

/**
 * Holds a metadata map to its caps: entry count, then per entry the key cap, the value's kind and
 * range and the value cap, then the total, the first failure winning (the order validation
 * documents). Sizes are first bounded without scanning text (3 bytes per UTF-16 unit); only a
 * bound over its cap is replaced by the exact UTF-8 size, so the usual short ASCII metadata is never
 * measured twice (the encoder scans it anyway when it copies it), and a refusal reports the exact
 * size as before.
 * @throws InvalidError as {@link checkMetadataEntryCount}, {@link checkMetadataKey},
 * {@link metadataValueSize}, {@link checkMetadataValueSize} and {@link checkMetadataTotal}.
 * @internal
 */
export function checkMetadataCaps(m: Metadata): void {
  checkMetadataEntryCount(m.size);
  let bound = 0;
  // forEach avoids allocating an entry array per metadata pair.
  m.forEach((v, k) => {
    const kb = utf8LengthBound(k);
    const ks = kb <= MAX_METADATA_KEY_BYTES ? kb : checkMetadataKey(k);
    const vb = metadataValueSizeBound(v);
    let vs = vb;
    if (vb > MAX_METADATA_VALUE_BYTES) {
      vs = metadataValueSize(v);
      checkMetadataValueSize(vs);
    }
    bound += ks + vs;
  });
  if (bound <= MAX_METADATA_TOTAL_BYTES) return;
  // Every key and value passed its own cap: only the exact total is left to decide.
  let total = 0;
  m.forEach((v, k) => {
    total += utf8Length(k) + metadataValueSize(v);
  });
  checkMetadataTotal(total);
}
