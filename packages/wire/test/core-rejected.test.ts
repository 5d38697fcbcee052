import { decodeEnvelope, validateEnvelope } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { checkDivergences, type Outcome } from './support/divergences.js';
import { fromHex, loadOracle } from './support/fixtures.js';
import { envelopeFromLogical } from './support/logical.js';
import { errorField, outcomeOf } from './support/outcome.js';

const file = loadOracle('rejected');

interface OracleError {
  kind: string;
  message: string;
  context?: Record<string, unknown>;
}

function expectedOutcome(stage: string, error: OracleError): string {
  const field = errorField(error);
  return `reject:${stage}:${error.kind}${field === undefined ? '' : `:${field}`}`;
}

/** Ours matches when kind and stage agree and, where the reference names a field, we name the same one. */
function matches(ours: string, expected: string): boolean {
  if (ours === expected) return true;
  const [, stage, kind, field] = expected.split(':');
  return field === undefined && ours.startsWith(`reject:${stage}:${kind}`);
}

describe('oracle rejected.json', () => {
  it('is the 0.1.1 rejected family', () => {
    expect(file.family).toBe('rejected');
    expect(file.reference.version).toBe('0.1.1');
    expect(file.cases.length).toBe(file.count);
  });

  const outcomes = new Map<string, Outcome>();
  const record = (id: string, name: string, ours: string, expected: string): void => {
    const prev = outcomes.get(id);
    const m = matches(ours, expected);
    // A case matches only if every stage it checks matches; `ours` lists each stage's outcome.
    outcomes.set(id, prev === undefined ? { matches: m, ours, name } : { matches: prev.matches && m, ours: `${prev.ours} | ${ours}`, name });
  };

  it('construct stage: building and validating the logical envelope fails as expected', () => {
    let n = 0;
    for (const c of file.cases) {
      if (c.construct === undefined) continue;
      expect(c.input.envelope, c.id).toBeDefined();
      n++;
      const ours = outcomeOf(() => validateEnvelope(envelopeFromLogical(c.input.envelope)), 'validate');
      record(c.id, c.name, ours, expectedOutcome('validate', c.construct.error));
    }
    expect(n).toBeGreaterThan(0);
  });

  it('decode stage: the pipeline refuses cbor_hex at the expected stage', () => {
    for (const c of file.cases) {
      expect(c.decode.rejects, c.id).toBe(true);
      const stage = c.decode.stage === 'validate' ? 'validate' : 'decode';
      const bytes = fromHex(c.input.cbor_hex);
      let ours = outcomeOf(() => decodeEnvelope(bytes), 'decode');
      if (ours === 'accept') ours = outcomeOf(() => validateEnvelope(decodeEnvelope(bytes)), 'validate');
      record(c.id, c.name, ours, expectedOutcome(stage, c.decode.error));
    }
  });

  it('every difference from 0.1.1 is a listed, explained divergence (and no listing is stale)', () => {
    checkDivergences('rejected', file.split, outcomes);
  });

  it('errors name their field in context', () => {
    for (const c of file.cases) {
      try {
        validateEnvelope(decodeEnvelope(fromHex(c.input.cbor_hex)));
      } catch (e) {
        const field = errorField(e as Error & { context?: Record<string, unknown> });
        if (c.decode.stage === 'validate' && field !== undefined) {
          expect((e as { context?: Record<string, unknown> }).context?.field, c.id).toBeDefined();
        }
      }
    }
  });
});
