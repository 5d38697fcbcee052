import {
  AgdxError,
  AgentEnvelope,
  costToMicros,
  decodeEnvelope,
  decodeSessionEnd,
  decodeSessionStart,
  decodeSessionTransition,
  encodeSessionEnd,
  encodeSessionStart,
  encodeSessionTransition,
  isTerminalTaskState,
  validateEnvelope,
} from '@agdx/wire';
import { encode as cborEncode } from 'cbor2';
import { describe, expect, it } from 'vitest';
import { envelopeToCborValue } from './support/cbor-value.js';
import { fromHex, loadWireVectors, toHex } from './support/fixtures.js';
import { envelopeFromLogical, envelopeToLogical } from './support/logical.js';

// fixtures/wire/: our language-neutral vectors for the seed-only features the 0.1.1 oracle cannot
// cover. Each byte string is cross-checked against cbor2 so the vectors are not only self-consistent.
describe('fixtures/wire/envelopes-seed.json', () => {
  const file = loadWireVectors('envelopes-seed');

  it('build → validate → encode gives cbor_hex; decode gives the logical envelope; cbor2 agrees', () => {
    expect(file.cases.length).toBeGreaterThan(10);
    for (const c of file.cases) {
      const env = envelopeFromLogical(c.envelope);
      expect(toHex(env.encode()), c.name).toBe(c.cbor_hex);
      const back = AgentEnvelope.decode(fromHex(c.cbor_hex));
      expect(envelopeToLogical(back), c.name).toEqual(c.envelope);
      expect(toHex(cborEncode(envelopeToCborValue(back), { avoidInts: true })), c.name).toBe(c.cbor_hex);
    }
  });

  it('session lifecycle bodies decode and re-encode byte-identically', () => {
    let n = 0;
    for (const c of file.cases) {
      const env = AgentEnvelope.decode(fromHex(c.cbor_hex));
      if (env.kind !== 'status' || env.operation !== 'session') continue;
      n++;
      const state = env.taskState as number;
      const hex = toHex(env.body);
      if (isTerminalTaskState(state)) expect(toHex(encodeSessionEnd(decodeSessionEnd(env.body))), c.name).toBe(hex);
      else if (c.name.includes('start')) expect(toHex(encodeSessionStart(decodeSessionStart(env.body))), c.name).toBe(hex);
      else expect(toHex(encodeSessionTransition(decodeSessionTransition(env.body))), c.name).toBe(hex);
    }
    expect(n).toBeGreaterThanOrEqual(6);
  });
});

describe('fixtures/wire/rejected-seed.json', () => {
  const file = loadWireVectors('rejected-seed');

  it('construct and decode both refuse each case with the recorded kind, field and message', () => {
    for (const c of file.cases) {
      let err: unknown;
      try {
        validateEnvelope(envelopeFromLogical(c.envelope));
      } catch (e) {
        err = e;
      }
      expect(AgdxError.is(err), c.name).toBe(true);
      const e = err as AgdxError;
      expect({ kind: e.kind, field: e.context?.field, message: e.message }, c.name).toEqual(c.error);
      const raw = decodeEnvelope(fromHex(c.cbor_hex));
      expect(toHex(cborEncode(envelopeToCborValue(raw), { avoidInts: true })), c.name).toBe(c.cbor_hex);
      let decodeErr: unknown;
      try {
        AgentEnvelope.decode(fromHex(c.cbor_hex));
      } catch (e) {
        decodeErr = e;
      }
      expect((decodeErr as AgdxError).message, c.name).toBe(c.error.message);
    }
  });
});

describe('fixtures/wire/cost-micros.json', () => {
  const file = loadWireVectors('cost-micros');

  it('accepts and converts exactly', () => {
    for (const c of file.accept) expect(costToMicros(c.input).toString(), c.input).toBe(c.micros);
  });

  it('rejects with InvalidError', () => {
    for (const input of file.reject) {
      let err: unknown;
      try {
        costToMicros(input);
      } catch (e) {
        err = e;
      }
      expect(AgdxError.is(err, 'invalid'), input).toBe(true);
    }
  });
});
