// Rings of distinct envelopes for the codec and signing benchmarks. Consecutive entries differ in
// every id, agent name and body, so the decoder's last-value id caches never hit (a benchmark that
// re-decodes one buffer measures those caches, not decoding), while every entry of a scenario has
// the same shape and nearly the same size.
import { AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, RecordId } from '@agdx/wire';

/** Entries per ring: more than any cache the codec keeps, small enough to stay in L2/L3. */
export const RING_SIZE = 256;

/** The three envelope shapes the issue measures. */
export type Scenario = 'command100' | 'chunk16' | 'response8k';

/** Every scenario, in report order. */
export const SCENARIOS: readonly Scenario[] = ['command100', 'chunk16', 'response8k'];

/** `n` bytes whose content depends on `seed`. */
export function seededBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed * 7) & 0xff;
  return out;
}

// A 128-bit id that differs in its high and low halves for every `i` of every `salt`.
function id128(i: number, salt: number): bigint {
  return (BigInt(0x0190_3c1f + salt) << 96n) | (BigInt(i + 1) << 40n) | BigInt((i * 2654435761) >>> 0);
}

/** Entry `i` of the `scenario` ring. */
export function ringEnvelope(scenario: Scenario, i: number): AgentEnvelope {
  const conversation = ConversationId.fromBigInt(id128(i, 1));
  const source = AgentId.new(`planner-${i}`);
  const correlation = CorrelationId.fromBigInt(id128(i, 2));
  switch (scenario) {
    case 'command100':
      return AgentEnvelope.command(RecordId.fromBigInt(id128(i, 3)), conversation, source, correlation, seededBytes(100, i))
        .withTarget(AgentId.new(`travel-agent-${i}`))
        .withOperation('chat');
    case 'chunk16':
      return AgentEnvelope.chunk(conversation, source, correlation, ChannelId.fromBigInt(id128(i, 4)), 1 + (i % 200), seededBytes(16, i));
    case 'response8k':
      return AgentEnvelope.response(RecordId.fromBigInt(id128(i, 5)), conversation, source, correlation, seededBytes(8192, i))
        .withTaskState(4)
        .withUsage({ inputTokens: 1200n + BigInt(i), outputTokens: 256n, reasoningOutputTokens: 64n })
        .withMetadata('role', 'assistant')
        .withMetadata('gen_ai.response.model', `model-${i % 7}`)
        .withMetadata('duration_micros', 123_456n + BigInt(i))
        .withMetadata('bridge_hops', ['a2a-1', 'mcp-2']);
  }
}

/** The whole ring of one scenario. */
export function envelopeRing(scenario: Scenario, size: number = RING_SIZE): AgentEnvelope[] {
  return Array.from({ length: size }, (_, i) => ringEnvelope(scenario, i));
}
