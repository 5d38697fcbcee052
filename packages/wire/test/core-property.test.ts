import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  ConversationId,
  decodeEnvelope,
  decodeSessionEnd,
  decodeSessionStart,
  decodeSessionTransition,
  encodeEnvelope,
  encodeSessionStart,
  RecordId,
  validateEnvelope,
} from '@agdx/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validEnvelope } from './support/arbitrary.js';
import { toHex } from './support/fixtures.js';
import { envelopeToLogical } from './support/logical.js';

const SEED = 20261130;

/** Decodes and validates arbitrary bytes; only typed errors may escape. Returns the envelope when accepted. */
function tryPipeline(bytes: Uint8Array): AgentEnvelope | undefined {
  try {
    const env = decodeEnvelope(bytes);
    validateEnvelope(env);
    return env;
  } catch (e) {
    if (AgdxError.is(e, 'codec') || AgdxError.is(e, 'invalid')) return undefined;
    throw e;
  }
}

describe('property: valid envelopes round-trip byte-identically', () => {
  it('encode → decode → validate → encode is the identity, and logical values survive', () => {
    fc.assert(
      fc.property(validEnvelope, (env) => {
        const bytes = env.encode();
        const back = AgentEnvelope.decode(bytes);
        expect(toHex(back.encode())).toBe(toHex(bytes));
        expect(envelopeToLogical(back)).toEqual(envelopeToLogical(env));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});

describe('property: hostile bytes only ever produce CodecError or InvalidError', () => {
  it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        tryPipeline(bytes);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('random bytes behind a plausible map head', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0xa0, max: 0xbf }), fc.uint8Array({ maxLength: 200 }), (head, rest) => {
        const bytes = new Uint8Array(rest.length + 1);
        bytes[0] = head;
        bytes.set(rest, 1);
        tryPipeline(bytes);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('mutated valid encodings (byte flips, truncation, insertion); anything accepted re-encodes to a fixed point', () => {
    const mutation = fc.oneof(
      fc.record({ op: fc.constant('flip' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
      fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('insert' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
      fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(validEnvelope, fc.array(mutation, { minLength: 1, maxLength: 4 }), (env, mutations) => {
        let bytes = encodeEnvelope(env);
        for (const m of mutations) {
          const at = m.at % Math.max(1, bytes.length);
          if (m.op === 'flip') {
            bytes = bytes.slice();
            bytes[at] = m.value;
          } else if (m.op === 'truncate') bytes = bytes.slice(0, at);
          else if (m.op === 'insert') bytes = new Uint8Array([...bytes.slice(0, at), m.value, ...bytes.slice(at)]);
          else bytes = new Uint8Array([...bytes.slice(0, at), ...bytes.slice(at + 1)]);
        }
        const accepted = tryPipeline(bytes);
        if (accepted !== undefined) {
          const canonical = encodeEnvelope(accepted);
          expect(toHex(encodeEnvelope(AgentEnvelope.decode(canonical)))).toBe(toHex(canonical));
        }
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });
});

describe('property: session lifecycle bodies are decoded as hostile input too', () => {
  it('random bodies on status `session` envelopes only raise InvalidError, and decoders only typed errors', () => {
    const base = AgentEnvelope.status(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), 'session');
    const start = encodeSessionStart({ agent: AgentId.new('a'), sdk: { language: 'ts', version: '1' }, tags: ['x'] });
    const bodies = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 120 }),
      fc.tuple(fc.nat(), fc.nat({ max: 255 })).map(([at, v]) => {
        const b = start.slice();
        b[at % b.length] = v;
        return b;
      }),
    );
    fc.assert(
      fc.property(bodies, fc.integer({ min: 0, max: 12 }), (body, state) => {
        const env = base.withTaskState(state).withBody(body);
        for (const candidate of [env, env.terminal()]) {
          try {
            validateEnvelope(candidate);
          } catch (e) {
            if (!AgdxError.is(e, 'invalid')) throw e;
          }
        }
        for (const decode of [decodeSessionStart, decodeSessionTransition, decodeSessionEnd]) {
          try {
            decode(body);
          } catch (e) {
            if (!AgdxError.is(e, 'codec') && !AgdxError.is(e, 'invalid')) throw e;
          }
        }
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});
