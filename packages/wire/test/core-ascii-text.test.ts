// The decoder builds short ASCII text itself (one spelled-out String.fromCharCode per length up to
// 16, a gathered array above). Held to TextDecoder for every length it handles and for the
// lengths around its limits, through the public decode of agent ids, operations and metadata keys.
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, RecordId } from '@agdx/wire';
import { decode as cborDecode } from 'cbor2';
import { describe, expect, it } from 'vitest';

const printable = (n: number, seed: number): string =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(0x20 + ((i * 37 + seed * 11) % 95))).join('');

describe('short ASCII text in the decoder', () => {
  it('decodes agent ids, tool names and metadata keys of every length 1..64 as cbor2 does', () => {
    for (let n = 1; n <= 64; n++) {
      for (const seed of [0, 1, 2]) {
        const source = printable(Math.min(n, 48), seed).trim() || 'x';
        const tool = printable(n, seed + 3);
        const key = printable(n, seed + 5);
        const e = AgentEnvelope.response(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new(source), CorrelationId.fromBigInt(3n), Uint8Array.of(1))
          .withTool(tool)
          .withMetadata(key, 'v');
        const bytes = e.encode();
        const back = AgentEnvelope.decode(bytes);
        const generic = cborDecode(bytes, { preferMap: true }) as Map<string, unknown>;
        expect(back.source.value).toBe(generic.get('source'));
        expect(back.tool).toBe(generic.get('tool'));
        expect([...(back.metadata?.keys() ?? [])]).toEqual([...((generic.get('metadata') as Map<string, unknown>).keys())]);
        expect(back.tool).toBe(tool);
      }
    }
  });

  it('falls back to full UTF-8 decoding for non-ASCII text of the same lengths', () => {
    for (let n = 1; n <= 20; n++) {
      const tool = `${'é'.repeat(n)}`;
      const e = AgentEnvelope.response(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), CorrelationId.fromBigInt(3n), Uint8Array.of(1)).withTool(tool);
      expect(AgentEnvelope.decode(e.encode()).tool).toBe(tool);
    }
  });
});
