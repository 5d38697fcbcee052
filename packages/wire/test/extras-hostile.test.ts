import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  AgdxError,
  decodeAgentCard,
  decodeAgentDeadLetter,
  decodeAgentErrorBody,
  decodeAgentPresence,
  decodeBackendAnnounce,
  decodeBodyRef,
  decodeFoldSnapshot,
  decodeHeaderBlock,
  decodeProvenanceHeaders,
  decodeSessionHeartbeat,
  decodeSessionParking,
  decodeSessionPauseRequest,
  decodeStateDelta,
  decodeStateSnapshot,
  decodeStrictCbor,
  readEnvelopeRecord,
  type HeaderKind,
  type HeaderValue,
} from '@agdx/wire';
import { fixtureBytes } from './extras-support/fixtures.js';

const SEED = 20260601;
const RUNS = 300;

const decoders: Record<string, (bytes: Uint8Array) => unknown> = {
  strictCbor: decodeStrictCbor,
  errorBody: decodeAgentErrorBody,
  deadLetter: decodeAgentDeadLetter,
  card: decodeAgentCard,
  presence: decodeAgentPresence,
  bodyRef: decodeBodyRef,
  foldSnapshot: decodeFoldSnapshot,
  hello: decodeBackendAnnounce,
  heartbeat: decodeSessionHeartbeat,
  parking: decodeSessionParking,
  pauseRequest: decodeSessionPauseRequest,
  stateDelta: decodeStateDelta,
  stateSnapshot: decodeStateSnapshot,
};

const seeds = ['agent_body_ref', 'agent_card', 'agent_dead_letter', 'agent_error_body', 'agent_presence', 'fold_snapshot', 'hello_reply_features'].map((n) =>
  fixtureBytes(`upstream/${n}.bin`),
);

/** Only typed AGDX errors of the codec/invalid kinds may escape a decoder. */
function typedOnly(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    if (!AgdxError.is(error, 'codec') && !AgdxError.is(error, 'invalid')) throw error;
  }
}

const mutated = fc
  .tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'delete')), { maxLength: 6 }), fc.nat())
  .map(([seed, edits, cut]) => {
    const bytes = [...seed];
    for (const [at, value, op] of edits) {
      const i = bytes.length === 0 ? 0 : at % bytes.length;
      if (op === 'set') bytes[i] = value;
      else if (op === 'insert') bytes.splice(i, 0, value);
      else bytes.splice(i, 1);
    }
    return Uint8Array.from(cut % 4 === 0 ? bytes.slice(0, cut % (bytes.length + 1)) : bytes);
  });

describe('hostile bytes into every capsule decoder', () => {
  test.each(Object.keys(decoders))('%s: random bytes', (name) => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => typedOnly(() => decoders[name]!(bytes))), { seed: SEED, numRuns: RUNS });
  });
  test.each(Object.keys(decoders))('%s: mutated fixtures', (name) => {
    fc.assert(fc.property(mutated, (bytes) => typedOnly(() => decoders[name]!(bytes))), { seed: SEED, numRuns: RUNS });
  });
  test('hostile heads: huge declared lengths, deep nesting, tags, simple values', () => {
    const cases = ['5bffffffffffffffff', '9bffffffffffffffff', 'bbffffffffffffffff', '7bffffffffffffffff', '9a7fffffff', 'c2410a', 'd8 20 61 61', 'f0', 'f7', '1801', '5f41ff', `${'81'.repeat(200)}00`];
    for (const hex of cases) {
      const bytes = Uint8Array.from(hex.replace(/ /g, '').match(/../g)!.map((h) => parseInt(h, 16)));
      for (const decode of Object.values(decoders)) typedOnly(() => decode(bytes));
      expect(() => decodeStrictCbor(bytes)).toThrow();
    }
  });
});

const KINDS: HeaderKind[] = ['raw', 'string', 'bool', 'int8', 'int16', 'int32', 'int64', 'int128', 'uint8', 'uint16', 'uint32', 'uint64', 'uint128', 'float32', 'float64'];
const NAMES = ['agdx.av', 'agdx.ct', 'agdx.to', 'agdx.parent_conv', 'agdx.root_conv', 'gen_ai.agent.id', 'gen_ai.conversation.id', 'agdx.deadline', 'agdx.fence', 'agdx.cost', 'agdx.idem', 'agdx.corr', 'agdx.cause', 'gen_ai.usage.input_tokens', 'x-other'];
const headerValue: fc.Arbitrary<HeaderValue> = fc.record({ kind: fc.constantFrom(...KINDS), value: fc.uint8Array({ maxLength: 40 }) });
const headers = fc.array(fc.tuple(fc.constantFrom(...NAMES), headerValue), { maxLength: 10 }).map((entries) => new Map(entries));

describe('hostile headers into the header decoders', () => {
  test('decodeHeaderBlock, decodeProvenanceHeaders and readEnvelopeRecord', () => {
    fc.assert(
      fc.property(headers, fc.uint8Array({ maxLength: 64 }), (h, payload) => {
        typedOnly(() => decodeHeaderBlock(h));
        typedOnly(() => decodeProvenanceHeaders(h));
        typedOnly(() => readEnvelopeRecord(h, payload, 0n));
      }),
      { seed: SEED, numRuns: RUNS * 3 },
    );
  });
});
