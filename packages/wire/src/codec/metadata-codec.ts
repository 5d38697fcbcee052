import { InvalidError } from '../errors.js';
import type { Metadata, MetadataValue } from '../envelope/metadata.js';
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
  m.forEach((value, key) => {
    w.text(key);
    writeMetadataValue(w, value);
  });
}

/** Thrown for a value metadata cannot hold; the path is completed while it propagates (no cost on success). */
class BadMetadataValue extends Error {
  suffix = '';
}

/** Reads one metadata value. @internal */
export function readMetadataValue(r: CborReader, depth: number): MetadataValue {
  if (depth > MAX_DEPTH) throw new CborFormatError('nesting too deep');
  r.head();
  switch (r.major) {
    case MAJOR_UINT:
      return r.bigArg ?? BigInt(r.arg);
    case MAJOR_NINT:
      return -1n - r.argBig();
    case MAJOR_TEXT:
      return r.textPayload();
    case MAJOR_ARRAY: {
      const n = r.arg;
      if (n > 0) r.need(n);
      const out: MetadataValue[] = [];
      for (let i = 0; more(r, n, i); i++) {
        try {
          out.push(readMetadataValue(r, depth + 1));
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
      if (r.info === 20) return false;
      if (r.info === 21) return true;
      if (r.info === 22) return null;
      if (r.info >= 25 && r.info <= 27) return r.readFloat();
      if (r.info === 31) throw new CborFormatError('unexpected break');
      throw new BadMetadataValue();
    default:
      // byte strings and maps are not metadata values
      throw new BadMetadataValue();
  }
}

/** Reads a string-keyed metadata map (insertion order kept), reporting under `<surface>.<key>`. @internal */
export function readMetadata(r: CborReader, surface: string, depth: number): Map<string, MetadataValue> {
  const count = expectMap(r, `${surface}.metadata`, depth);
  const out = new Map<string, MetadataValue>();
  for (let i = 0; more(r, count, i); i++) {
    const key = r.mapKey(depth);
    if (key === undefined) throw shape(`expected a string-keyed map in ${surface}`, surface, 'map');
    if (out.has(key)) throw repeat(key);
    try {
      out.set(key, readMetadataValue(r, depth + 1));
    } catch (e) {
      if (e instanceof BadMetadataValue) {
        const path = `${surface}.${key}${e.suffix}`;
        throw shape(`cannot decode value in ${path}`, path, 'value');
      }
      throw e;
    }
  }
  return out;
}
