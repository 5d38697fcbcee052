// The decoder's fast paths (printable-ASCII agent ids adopted without a second scan, id caches that
// compare against the cached value) must give exactly what the plain path gives: the same AgentId
// text, or the same typed error with the same message as AgentId.parse.
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, decodeEnvelope, RecordId } from '@agdx/wire';
import { encode as cborEncode } from 'cbor2';
import { describe, expect, it } from 'vitest';
import { envelopeToCborValue } from './support/cbor-value.js';

const base = AgentEnvelope.command(
  RecordId.fromBigInt(1n),
  ConversationId.fromBigInt(2n),
  AgentId.new('planner'),
  CorrelationId.fromBigInt(3n),
  new Uint8Array([1, 2, 3]),
);

/** Wire bytes of `base` whose `source` is `text`, however hostile (cbor2 writes what it is given). */
function withSource(text: string): Uint8Array {
  const value = envelopeToCborValue(base) as Map<string, unknown>;
  value.set('source', text);
  return cborEncode(value, { avoidInts: true });
}

function outcome(run: () => AgentId): string {
  try {
    return `ok:${run().value}`;
  } catch (e) {
    return `${(e as Error).name}:${(e as Error).message}`;
  }
}

describe('decoder fast paths match the plain path', () => {
  const sources = [
    'a',
    'planner-7',
    '~ !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}',
    'x'.repeat(48),
    'x'.repeat(49),
    'x'.repeat(256),
    'x'.repeat(257),
    '',
    'tab\there',
    'del\u007fhere',
    'nul\u0000',
    'c1\u0085',
    'café',
    '𝄞',
  ];
  for (const text of sources) {
    it(`source ${JSON.stringify(text.length > 20 ? `${text.slice(0, 8)}…(${text.length})` : text)}`, () => {
      const plain = outcome(() => AgentId.parse(text));
      const decoded = outcome(() => decodeEnvelope(withSource(text)).source);
      expect(decoded).toBe(plain);
    });
  }

  it('a cached id is reused only for identical bytes, never for a near miss', () => {
    const a = decodeEnvelope(withSource('agent-a'));
    const again = decodeEnvelope(withSource('agent-a'));
    const b = decodeEnvelope(withSource('agent-b'));
    expect(again.source).toBe(a.source);
    expect(b.source.value).toBe('agent-b');
    expect(a.source.value).toBe('agent-a');
  });

  it('the id cache survives the caller reusing its input buffer', () => {
    const bytes = withSource('reused');
    const first = decodeEnvelope(bytes);
    const conversation = first.conversation.toBigInt();
    // Overwrite the input where the conversation id sits, then decode a different envelope.
    bytes.fill(0);
    const other = base.with({ conversation: ConversationId.fromBigInt(99n) });
    expect(decodeEnvelope(other.encode()).conversation.toBigInt()).toBe(99n);
    expect(first.conversation.toBigInt()).toBe(conversation);
  });
});
