// The decoder builds each envelope from its locals through the positional constructor path
// (assembleEnvelope); every other path goes through fromFields. Both must give the same envelope:
// the same field values, the same defaults, the same own properties in the same order (one layout).
import { AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, IdempotencyKey, LogPosition, RecordId } from '@agdx/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validEnvelope } from './support/arbitrary.js';

function viaFields(e: AgentEnvelope): AgentEnvelope {
  return AgentEnvelope.fromFields(e.toFields());
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
    const full = AgentEnvelope.command(
      RecordId.fromBigInt(1n),
      ConversationId.fromBigInt(2n),
      AgentId.new('planner'),
      CorrelationId.fromBigInt(3n),
      new Uint8Array([9, 8, 7]),
    )
      .withParent(ConversationId.fromBigInt(5n), ConversationId.fromBigInt(6n))
      .withTarget(AgentId.new('worker'))
      .withCause(RecordId.fromBigInt(7n), LogPosition.fromBytes(new Uint8Array(20).fill(3)))
      .withIdempotencyKey(IdempotencyKey.new('key-1'))
      .withDeadlineMicros(123n)
      .withOperation('chat')
      .withTool('search')
      .withMetadata('role', 'user')
      .requiring(0n);
    const decoded = AgentEnvelope.decode(full.encode().slice());
    expect(decoded.toFields()).toEqual(full.toFields());
    expect(Object.keys(decoded)).toEqual(Object.keys(full));
  });
});
