import { AgdxError, decodeEnvelope, encodeEnvelope, validateEnvelope } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { checkDivergences, type Outcome } from './support/divergences.js';
import { fromHex, loadOracle, toHex } from './support/fixtures.js';
import { asReferenceLogical, envelopeToLogical } from './support/logical.js';
import { isDeepStrictEqual } from 'node:util';

const file = loadOracle('decode_accept');

describe('oracle decode_accept.json', () => {
  it('is the 0.1.1 decode_accept family', () => {
    expect(file.family).toBe('decode_accept');
    expect(file.reference.version).toBe('0.1.1');
    expect(file.cases.length).toBe(file.count);
  });

  it('accepts non-canonical input and re-encodes canonically, except listed quirks', () => {
    const outcomes = new Map<string, Outcome>();
    for (const c of file.cases) {
      let ours: string;
      let matches = false;
      try {
        const env = decodeEnvelope(fromHex(c.input_cbor_hex));
        validateEnvelope(env);
        const logical = asReferenceLogical(envelopeToLogical(env));
        const canonical = toHex(encodeEnvelope(env));
        matches = isDeepStrictEqual(logical, c.decoded) && canonical === c.canonical_cbor_hex;
        // Re-encoding our canonical bytes is a fixed point in every case, diverging or not.
        expect(toHex(encodeEnvelope(decodeEnvelope(fromHex(canonical)))), c.id).toBe(canonical);
        ours = matches
          ? 'accept'
          : `accept:differs:${describeDiff(logical, c.decoded)}${canonical === c.input_cbor_hex ? ':canonical=input' : ''}`;
      } catch (e) {
        if (!AgdxError.is(e)) throw e;
        ours = `reject:${e.kind}`;
      }
      outcomes.set(c.id, { matches, ours, name: c.name });
    }
    checkDivergences('decode_accept', file.split, outcomes);
  });
});

function describeDiff(ours: Record<string, any>, theirs: Record<string, any>): string {
  const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
  const diff = [...keys].filter((k) => !isDeepStrictEqual(ours[k], theirs[k]));
  return diff.length === 0 ? 'bytes' : diff.join(',');
}
