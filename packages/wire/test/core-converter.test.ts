import { describe, expect, it } from 'vitest';
import { loadOracle } from './support/fixtures.js';
import { asReferenceLogical, envelopeFromLogical, envelopeToLogical } from './support/logical.js';

// The converter is the base of every other oracle test, so it is checked first and on its own.
describe('logical JSON converter', () => {
  const envelopes = loadOracle('envelopes');
  const accepted = loadOracle('decode_accept');

  it('reads the 0.1.1 oracle files', () => {
    for (const f of [envelopes, accepted]) {
      expect(f.reference.package).toBe('@laserdata/laser-sdk');
      expect(f.reference.version).toBe('0.1.1');
    }
  });

  it('logical → typed → logical is the identity on every envelopes.json envelope', () => {
    expect(envelopes.cases.length).toBeGreaterThan(0);
    for (const c of envelopes.cases) {
      expect(asReferenceLogical(envelopeToLogical(envelopeFromLogical(c.envelope))), c.id).toEqual(c.envelope);
    }
  });

  it('logical → typed → logical is the identity on every decode_accept decoded envelope', () => {
    for (const c of accepted.cases) {
      expect(asReferenceLogical(envelopeToLogical(envelopeFromLogical(c.decoded))), c.id).toEqual(c.decoded);
    }
  });
});
