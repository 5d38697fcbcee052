/**
 * Differential test of the chunk writer's hot path: ChunkEncoder must give exactly wire's
 * encodeEnvelope bytes, and accept exactly what wire's validateEnvelope accepts, for every later
 * chunk of a stream.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkEncoder } from '@agdx/agents';
import { toHex } from './support-client/fixtures.js';
import { AgdxError, AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, encodeEnvelope, LogPosition, RecordId, validateEnvelope } from '@agdx/wire';

const U64_MAX = (1n << 64n) - 1n;
const id16 = fc.uint8Array({ minLength: 16, maxLength: 16 });
const agentText = fc
  .string({ unit: fc.constantFrom('a', 'z', '-', '.', 'é', '中', '🤖', '_', '9'), minLength: 1, maxLength: 60 })
  .filter((s) => new TextEncoder().encode(s).length <= 255);
const boundaries = [1n, 23n, 24n, 255n, 256n, 65_535n, 65_536n, 0xffff_ffffn, 0x1_0000_0000n, U64_MAX];
const sequence = fc.oneof(fc.constantFrom(...boundaries), fc.bigInt({ min: 1n, max: U64_MAX }));
const bodyLength = fc.oneof(fc.constantFrom(0, 1, 23, 24, 255, 256, 65_535, 65_536), fc.nat({ max: 4096 }));

function verdict(fn: () => Uint8Array): { ok: true; bytes: string } | { ok: false; kind: string } {
  try {
    return { ok: true, bytes: toHex(fn()) };
  } catch (error) {
    expect(AgdxError.is(error)).toBe(true);
    return { ok: false, kind: (error as AgdxError).kind };
  }
}

describe('ChunkEncoder', () => {
  it('matches wire byte for byte and rule for rule', () => {
    fc.assert(
      fc.property(id16, id16, id16, agentText, fc.option(agentText, { nil: undefined }), fc.option(id16, { nil: undefined }), fc.boolean(), sequence, bodyLength, (c, k, ch, source, target, cause, withAt, seq, len) => {
        const fields = {
          conversation: ConversationId.fromBytes(c),
          source: AgentId.new(source),
          target: target === undefined ? undefined : AgentId.new(target),
          cause: cause === undefined ? undefined : RecordId.fromBytes(cause),
          causeAt: cause !== undefined && withAt ? LogPosition.fromBytes(new Uint8Array(20).fill(7)) : undefined,
          correlation: CorrelationId.fromBytes(k),
          channel: ChannelId.fromBytes(ch),
        };
        const encoder = ChunkEncoder.for(fields);
        expect(encoder).toBeDefined();
        const body = new Uint8Array(len).map((_, i) => (i * 31 + len) & 0xff);
        const wire = verdict(() => {
          const env = AgentEnvelope.fromFields({ kind: 'chunk', ...fields, sequence: seq, body });
          validateEnvelope(env);
          return encodeEnvelope(env);
        });
        expect(verdict(() => encoder!.encode(seq, body))).toEqual(wire);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses the opening sequence and sequences beyond u64', () => {
    const encoder = ChunkEncoder.for({
      conversation: ConversationId.new(),
      source: AgentId.new('w'),
      correlation: CorrelationId.fromBytes(new Uint8Array(16)),
      channel: ChannelId.fromBytes(new Uint8Array(16).fill(1)),
    })!;
    expect(() => encoder.encode(0n, new Uint8Array(1))).toThrow(/sequence/);
    expect(() => encoder.encode(U64_MAX + 1n, new Uint8Array(1))).toThrow(/sequence/);
    expect(() => encoder.encode(1n, new Uint8Array(0))).toThrow(/body/);
  });
});
