import { AgentEnvelope, encodeEnvelope, validateEnvelope } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { fromHex, loadOracle, toHex } from './support/fixtures.js';
import { asReferenceLogical, envelopeFromLogical, envelopeToLogical } from './support/logical.js';

const file = loadOracle('envelopes');

// Owned elsewhere or not copied: `headers` and `canonical_record_hex` follow the 0.1.1 header layout
// (wire-extras implements the seed layout); `signature_check` is covered by @agdx/sign.
const SKIPPED_FIELDS = ['headers', 'canonical_record_hex', 'signature_check'] as const;

describe('oracle envelopes.json', () => {
  it('is the 0.1.1 envelopes family', () => {
    expect(file.family).toBe('envelopes');
    expect(file.reference.version).toBe('0.1.1');
    expect(file.cases.length).toBe(file.count);
  });

  it('build from logical → validate → encode gives cbor_hex (every case)', () => {
    for (const c of file.cases) {
      const env = envelopeFromLogical(c.envelope);
      expect(() => validateEnvelope(env), c.id).not.toThrow();
      expect(toHex(env.encode()), c.id).toBe(c.cbor_hex);
      expect(c.size_bytes, c.id).toBe(c.cbor_hex.length / 2);
    }
  });

  it('decode → validate equals the logical envelope and re-encodes to the same bytes', () => {
    for (const c of file.cases) {
      const env = AgentEnvelope.decode(fromHex(c.cbor_hex));
      expect(asReferenceLogical(envelopeToLogical(env)), c.id).toEqual(c.envelope);
      expect(toHex(encodeEnvelope(env)), c.id).toBe(c.cbor_hex);
    }
  });

  it('partition key is the Crockford conversation', () => {
    for (const c of file.cases) {
      expect(AgentEnvelope.decode(fromHex(c.cbor_hex)).conversation.toString(), c.id).toBe(c.partition_key);
    }
  });

  it('receiver must-understand verdicts', () => {
    for (const c of file.cases) {
      const env = AgentEnvelope.decode(fromHex(c.cbor_hex));
      const unmet = env.unmetRequirements(0n);
      expect(unmet.toString(), c.id).toBe(c.receiver.must_understand_unmet_with_understood_0);
      expect(unmet === 0n, c.id).toBe(c.receiver.accepted_by_receiver_understanding_no_features);
    }
  });

  it(`skips ${SKIPPED_FIELDS.join(', ')} explicitly (owned by wire-extras / sign)`, () => {
    const counts = Object.fromEntries(SKIPPED_FIELDS.map((f) => [f, file.cases.filter((c: any) => c[f] !== undefined).length]));
    // Every case has a header list and a canonical record; a subset carries a signature check.
    expect(counts.headers).toBe(file.cases.length);
    expect(counts.canonical_record_hex).toBe(file.cases.length);
    console.info(`envelopes.json: skipped fields ${JSON.stringify(counts)}`);
  });
});
