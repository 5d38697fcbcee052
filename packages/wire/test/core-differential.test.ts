import { decodeEnvelope, encodeEnvelope } from '@agdx/wire';
import { decode as cborDecode, encode as cborEncode } from 'cbor2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validEnvelope } from './support/arbitrary.js';
import { envelopeToCborValue } from './support/cbor-value.js';
import { loadOracle, toHex, fromHex } from './support/fixtures.js';
import { envelopeToLogical } from './support/logical.js';

// cbor2 as the reference library: insertion-order maps, numbers always floats (avoidInts; bigints
// stay integers), shortest float width; decoding keeps every integer a bigint and every map a Map.
const ENCODE = { avoidInts: true } as const;
const DECODE = { preferBigInt: true, preferMap: true, rejectDuplicateKeys: true } as const;

function normalise(v: unknown): unknown {
  // Byte strings come back from cbor2 as Uint8Array views; compare contents.
  if (v instanceof Uint8Array) return toHex(v);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, normalise(x)]));
  if (Array.isArray(v)) return v.map(normalise);
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return v;
}

describe('differential: hand codec vs cbor2 2.3.0', () => {
  it('our bytes == cbor2 encoding of the same logical map; both decoders agree (generated envelopes)', () => {
    fc.assert(
      fc.property(validEnvelope, (env) => {
        const ours = encodeEnvelope(env);
        const value = envelopeToCborValue(env);
        const theirs = cborEncode(value, ENCODE);
        expect(toHex(ours)).toBe(toHex(theirs));
        // cbor2 decoding our bytes gives the same logical value.
        expect(normalise(cborDecode(ours, DECODE))).toEqual(normalise(value));
        // Our decoder on cbor2's bytes gives the same envelope.
        expect(envelopeToLogical(decodeEnvelope(theirs))).toEqual(envelopeToLogical(env));
      }),
      { seed: 42, numRuns: 3000 },
    );
    // 3,000 generated envelopes take about 4 s on a quiet core and 30 s on a loaded one.
  }, 180_000);

  it('agrees with cbor2 on every oracle envelope', () => {
    for (const c of loadOracle('envelopes').cases) {
      const env = decodeEnvelope(fromHex(c.cbor_hex));
      expect(toHex(cborEncode(envelopeToCborValue(env), ENCODE)), c.id).toBe(c.cbor_hex);
    }
  });
});
