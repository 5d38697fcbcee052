import { InvalidError } from '../errors.js';
import type { Metadata, MetadataValue } from '../envelope/metadata.js';
import {
  checkMetadataEntryCount,
  checkMetadataKey,
  MAX_METADATA_TOTAL_BYTES,
  MAX_METADATA_VALUE_BYTES,
  METADATA_SCALAR_SIZE,
  overCap,
} from '../envelope/metadata-caps.js';
import { expectMap, more, repeat, shape } from './field-readers.js';
import { CborFormatError, CborReader, MAJOR_ARRAY, MAJOR_NINT, MAJOR_SIMPLE, MAJOR_TAG, MAJOR_TEXT, MAJOR_UINT, MAX_DEPTH } from './reader.js';
import type { ByteWriter } from './writer.js';

const U64_MAX = (1n << 64n) - 1n;
const I65_MIN = -(1n << 64n);

/** Writes one metadata value (ints always as CBOR integers, numbers always as floats). @internal */
export function writeMetadataValue(w: ByteWriter, v: MetadataValue, depth = 0): void {
  switch (typeof v) {
    case 'string':
      w.text(v);
      return;
    case 'bigint':
      if (v > U64_MAX || v < I65_MIN) {
        throw new InvalidError('metadata integer is outside the CBOR integer range', { context: { field: 'metadata' } });
      }
      w.int(v);
      return;
    case 'number':
      w.float(v);
      return;
    case 'boolean':
      w.bool(v);
      return;
    default:
      if (v === null) {
        w.nil();
        return;
      }
      if (Array.isArray(v) && depth < MAX_DEPTH) {
        const list = v as readonly MetadataValue[];
        w.head(4, list.length);
        for (let i = 0; i < list.length; i++) writeMetadataValue(w, list[i] as MetadataValue, depth + 1);
        return;
      }
      throw new InvalidError('metadata values are strings, integers, floats, booleans, null or lists', {
        context: { field: 'metadata' },
      });
  }
}

/** Writes a metadata map in insertion order. @internal */
export function writeMetadata(w: ByteWriter, m: Metadata): void {
  w.head(5, m.size);
  // The writer rides as `this`: no closure allocated per map.
  m.forEach(writeMetadataEntry, w);
}

function writeMetadataEntry(this: ByteWriter, value: MetadataValue, key: string): void {
  this.text(key);
  writeMetadataValue(this, value);
}

/** Thrown for a value metadata cannot hold; the path is completed while it propagates (no cost on success). */
class BadMetadataValue extends Error {
  suffix = '';
}

/**
 * Running cap-rule size of the metadata being decoded. Each string length and list count is charged
 * before its payload is read, so a value or map over its cap is refused before it is allocated.
 */
class MetadataBudget {
  /** Keys and finished values so far. */
  total = 0;
  /** The value being read so far. */
  value = 0;
  readonly #valueCap: number;
  readonly #totalCap: number;

  /** Uncapped budgets only measure (the reader's item budget still bounds them). */
  constructor(capped: boolean) {
    this.#valueCap = capped ? MAX_METADATA_VALUE_BYTES : Infinity;
    this.#totalCap = capped ? MAX_METADATA_TOTAL_BYTES : Infinity;
  }

  charge(size: number, complete: boolean): void {
    this.value += size;
    if (this.value > this.#valueCap) throw overCap('metadata value', this.value, this.#valueCap, !complete);
    const total = this.total + this.value;
    if (total > this.#totalCap) throw overCap('metadata', total, this.#totalCap, !complete);
  }
}

/** Reads one metadata value, charging its cap-rule size to `budget` before allocating. @internal */
export function readMetadataValue(r: CborReader, depth: number, budget: MetadataBudget = new MetadataBudget(false)): MetadataValue {
  if (depth > MAX_DEPTH) throw new CborFormatError('nesting too deep');
  r.head();
  const top = budget.value === 0;
  switch (r.major) {
    case MAJOR_UINT:
      budget.charge(METADATA_SCALAR_SIZE, top);
      return r.bigArg ?? BigInt(r.arg);
    case MAJOR_NINT:
      budget.charge(METADATA_SCALAR_SIZE, top);
      return -1n - r.argBig();
    case MAJOR_TEXT:
      r.need(r.arg);
      // The cap counts UTF-8 bytes, which is exactly the declared length.
      budget.charge(r.arg, top);
      return r.textPayload();
    case MAJOR_ARRAY: {
      const n = r.arg;
      if (n > 0) {
        r.fits(n);
        budget.charge(n, false);
      }
      const out: MetadataValue[] = [];
      for (let i = 0; more(r, n, i); i++) {
        if (n < 0) budget.charge(1, false);
        try {
          out.push(readMetadataValue(r, depth + 1, budget));
        } catch (e) {
          if (e instanceof BadMetadataValue) e.suffix = `[${i}]${e.suffix}`;
          throw e;
        }
      }
      return out;
    }
    case MAJOR_TAG:
      throw new CborFormatError(`tag not supported (${r.arg})`);
    case MAJOR_SIMPLE:
      r.checkSimple();
      if (r.info === 31) throw new CborFormatError('unexpected break');
      if (r.info === 23) throw new BadMetadataValue();
      budget.charge(METADATA_SCALAR_SIZE, top);
      if (r.info === 20) return false;
      if (r.info === 21) return true;
      if (r.info === 22) return null;
      return r.readFloat();
    default:
      // byte strings and maps are not metadata values
      throw new BadMetadataValue();
  }
}

/**
 * Reads a string-keyed metadata map (insertion order kept), reporting under `<surface>.<key>`.
 * With `capped` (envelope metadata), the entry count, key sizes, value sizes and the total are
 * held to the metadata caps while reading (InvalidError, the same words as validation): the count
 * is refused as soon as it is read, and a string or list as soon as its declared length pushes a
 * cap over, so an oversized map costs no more than its caps' worth of work. @internal
 */
export function readMetadata(r: CborReader, surface: string, depth: number, capped = false): Map<string, MetadataValue> {
  const count = expectMap(r, `${surface}.metadata`, depth, capped ? checkMetadataEntryCount : undefined);
  const out = new Map<string, MetadataValue>();
  const budget = new MetadataBudget(capped);
  for (let i = 0; more(r, count, i); i++) {
    if (capped && count < 0) checkMetadataEntryCount(i + 1);
    const key = r.mapKey(depth);
    if (key === undefined) throw shape(`expected a string-keyed map in ${surface}`, surface, 'map');
    if (out.has(key)) throw repeat(key);
    budget.total += capped ? checkMetadataKey(key) : 0;
    budget.value = 0;
    try {
      out.set(key, readMetadataValue(r, depth + 1, budget));
    } catch (e) {
      if (e instanceof BadMetadataValue) {
        const path = `${surface}.${key}${e.suffix}`;
        throw shape(`cannot decode value in ${path}`, path, 'value');
      }
      throw e;
    }
    budget.total += budget.value;
  }
  return out;
}
