// The decoder builds each envelope from its locals through the positional constructor path
// (assembleEnvelope); every other path goes through fromFields. Both must give the same envelope:
// the same field values, the same defaults, the same own properties in the same order (one layout).
import { AgdxError, AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, IdempotencyKey, LogPosition, RecordId } from '@agdx/wire';
import { encode as cborEncode } from 'cbor2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validEnvelope } from './support/arbitrary.js';
import { envelopeToCborValue } from './support/cbor-value.js';

function viaFields(e: AgentEnvelope): AgentEnvelope {
  return AgentEnvelope.fromFields(e.toFields());
}

/** A CBOR map of `entries` in the order given (repeats allowed), values written as cbor2 writes them. */
function mapOf(entries: readonly (readonly [string, unknown])[]): Uint8Array {
  const n = entries.length;
  const parts = entries.flatMap(([k, v]) => [cborEncode(k), cborEncode(v as never, { avoidInts: true })]);
  return Uint8Array.from([...(n < 24 ? [0xa0 | n] : [0xb8, n]), ...parts.flatMap((p) => [...p])]);
}

/** `entries` shuffled by `seed` (a small generator: the same seed, the same order). */
function shuffled<T>(entries: readonly T[], seed: number): T[] {
  const out = [...entries];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const FIELD_KEYS = [
  'kind', 'record', 'conversation', 'parent', 'root', 'source', 'target', 'cause', 'cause_at', 'correlation', 'channel', 'idempotency_key',
  'deadline_micros', 'sequence', 'last', 'finish_reason', 'task_state', 'operation', 'tool', 'usage', 'metadata', 'must_understand', 'body', 'signature',
] as const;

/** Values of every CBOR type, at the edges of each field's range and beyond. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    0, 1, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, -1, -25, true, false, null, undefined, 1.5, Number.NaN, '', 'command', 'task', 'chat',
    [], new Map(), (1n << 64n) - 1n, 1n << 63n, 1n << 53n, -(1n << 64n),
    new Uint8Array(0), new Uint8Array(15), new Uint8Array(16), new Uint8Array(17), new Uint8Array(19), new Uint8Array(20), new Uint8Array(21),
  ),
  fc.uint8Array({ maxLength: 24 }),
  fc.string({ maxLength: 6 }),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
);

/** The typed errors of a failed decode, outermost first. */
/** A command with every optional field a command may carry set, around `body`. */
function commandWithEveryOptionalField(body: Uint8Array, requires: bigint): AgentEnvelope {
  return AgentEnvelope.command(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('planner'), CorrelationId.fromBigInt(3n), body)
    .withParent(ConversationId.fromBigInt(5n), ConversationId.fromBigInt(6n))
    .withTarget(AgentId.new('worker'))
    .withCause(RecordId.fromBigInt(7n), LogPosition.fromBytes(new Uint8Array(20).fill(3)))
    .withIdempotencyKey(IdempotencyKey.new('key-1'))
    .withDeadlineMicros(123n)
    .withOperation('chat')
    .withTool('search')
    .withMetadata('role', 'user')
    .requiring(requires);
}

function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

describe('decoded envelopes are assembled like every other envelope', () => {
  it('any valid envelope decodes to what fromFields builds from the decoded fields, key order included', () => {
    fc.assert(
      fc.property(validEnvelope, (e) => {
        const decoded = AgentEnvelope.decode(e.encode().slice());
        const rebuilt = viaFields(decoded);
        expect(decoded).toEqual(rebuilt);
        expect(Object.keys(decoded)).toEqual(Object.keys(rebuilt));
        expect(Object.keys(decoded)).toEqual(Object.keys(e));
        expect(Object.getPrototypeOf(decoded)).toBe(AgentEnvelope.prototype);
        expect(decoded.encode()).toEqual(e.encode());
      }),
      { numRuns: 300 },
    );
  });

  it('fields left out on the wire come back as the same defaults fromFields gives', () => {
    const chunk = AgentEnvelope.chunk(
      ConversationId.fromBigInt(2n),
      AgentId.new('a'),
      CorrelationId.fromBigInt(3n),
      ChannelId.fromBigInt(4n),
      3,
      new Uint8Array(0),
    ).terminal();
    const decoded = AgentEnvelope.decode(chunk.encode().slice());
    expect(decoded.mustUnderstand).toBe(0n);
    expect(decoded.body).toEqual(new Uint8Array(0));
    expect(decoded.last).toBe(true);
    const minimal = AgentEnvelope.decode(
      AgentEnvelope.event(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), new Uint8Array([1])).encode().slice(),
    );
    expect(minimal.last).toBe(false);
    expect(minimal.mustUnderstand).toBe(0n);
    for (const key of ['record', 'parent', 'root', 'target', 'cause', 'causeAt', 'correlation', 'channel', 'idempotencyKey', 'deadlineMicros', 'sequence', 'finishReason', 'taskState', 'operation', 'tool', 'usage', 'metadata', 'signature'] as const) {
      expect(key === 'record' ? minimal[key] !== undefined : minimal[key] === undefined).toBe(true);
    }
    expect(minimal).toEqual(viaFields(minimal));
  });

  it('every field set survives the positional path in its own slot', () => {
    const full = commandWithEveryOptionalField(new Uint8Array([9, 8, 7]), 0n);
    const decoded = AgentEnvelope.decode(full.encode().slice());
    expect(decoded.toFields()).toEqual(full.toFields());
    expect(Object.keys(decoded)).toEqual(Object.keys(full));
  });
  it('gives the same envelope for its fields in any order, with unknown keys of any value between them', () => {
    const unknownKey = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !(FIELD_KEYS as readonly string[]).includes(k));
    fc.assert(
      fc.property(validEnvelope, fc.nat(), fc.uniqueArray(fc.tuple(unknownKey, anyValue), { selector: ([k]) => k, maxLength: 3 }), (e, seed, extra) => {
        const bytes = mapOf(shuffled([...envelopeToCborValue(e), ...extra], seed));
        const decoded = AgentEnvelope.decode(bytes);
        expect(decoded.toFields()).toEqual(AgentEnvelope.decode(e.encode().slice()).toFields());
        expect(Object.keys(decoded)).toEqual(Object.keys(e));
        expect(decoded.encode()).toEqual(e.encode());
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a repeated field, a field of the wrong type or a missing one with a typed error, and rebuilds whatever it accepts', () => {
    fc.assert(
      fc.property(
        validEnvelope,
        fc.array(fc.tuple(fc.constantFrom(...FIELD_KEYS), anyValue), { maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 2 }),
        fc.nat(),
        fc.boolean(),
        (e, edits, drops, seed, repeat) => {
          const entries: [string, unknown][] = [...envelopeToCborValue(e)];
          for (const d of drops) if (entries.length > 0) entries.splice(d % entries.length, 1);
          let repeated: string | undefined;
          for (const [key, value] of edits) {
            const at = entries.findIndex(([k]) => k === key);
            if (at < 0 || !repeat) {
              if (at >= 0) entries[at] = [key, value];
              else entries.push([key, value]);
            } else {
              entries.push([key, value]);
              repeated ??= key;
            }
          }
          const bytes = mapOf(shuffled(entries, seed));
          let decoded: AgentEnvelope;
          try {
            decoded = AgentEnvelope.decode(bytes);
          } catch (error) {
            expect(AgdxError.is(error)).toBe(true);
            return;
          }
          expect(repeated).toBeUndefined();
          const rebuilt = viaFields(decoded);
          expect(decoded).toEqual(rebuilt);
          expect(Object.keys(decoded)).toEqual(Object.keys(rebuilt));
          expect(AgentEnvelope.decode(decoded.encode().slice()).toFields()).toEqual(decoded.toFields());
        },
      ),
      { numRuns: 1_000 },
    );
  });
  it('refuses every field given twice, even with the same value, wherever the two stand', () => {
    const full = commandWithEveryOptionalField(new Uint8Array([9]), 1n);
    const entries = [...envelopeToCborValue(full)];
    for (let i = 0; i < entries.length; i++) {
      for (const seed of [1, 2, 3]) {
        const bytes = mapOf(shuffled([...entries, entries[i] as [string, unknown]], seed));
        let thrown: unknown;
        try {
          AgentEnvelope.decode(bytes);
        } catch (error) {
          thrown = error;
        }
        expect(AgdxError.is(thrown)).toBe(true);
        expect(errorChain(thrown).map((c) => (c as Error).message).join(' / ')).toContain(`found repeat map key ${JSON.stringify(entries[i]?.[0])}`);
      }
    }
  });
});
