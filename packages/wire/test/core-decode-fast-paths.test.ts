// The decoder's fast paths (printable-ASCII agent ids adopted without a second scan, id caches that
// compare against the cached value) must give exactly what the plain path gives: the same AgentId
// text, or the same typed error with the same message as AgentId.parse.
import { AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, decodeEnvelope, RecordId } from '@agdx/wire';
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

// The one-byte-head fast paths (known keys, ids, the kind, agent names, small sequence numbers)
// read straight from the input; every input they do not take must reach the general path with
// nothing consumed, so the outcome is what it was before they existed.
describe('one-byte-head fast paths fall back without consuming anything', () => {
  const chunk = AgentEnvelope.chunk(
    ConversationId.fromBigInt(7n),
    AgentId.new('writer'),
    CorrelationId.fromBigInt(8n),
    ChannelId.fromBigInt(9n),
    3,
    new Uint8Array([4, 5, 6]),
  );

  function bytesWith(edit: (m: Map<string, unknown>) => void): Uint8Array {
    const value = envelopeToCborValue(chunk) as Map<string, unknown>;
    edit(value);
    return cborEncode(value, { avoidInts: true });
  }

  function failure(bytes: Uint8Array): { name: string; message: string; field: unknown } {
    try {
      decodeEnvelope(bytes);
    } catch (e) {
      return { name: (e as Error).name, message: (e as Error).message, field: (e as { context?: { field?: unknown } }).context?.field };
    }
    throw new Error('decoded');
  }

  it('sequence numbers on both sides of the one-byte boundary decode to the same value', () => {
    for (const n of [0n, 1n, 23n, 24n, 200n, 255n, 256n, 1023n, 1024n, 65_535n, 65_536n, 2n ** 32n, 2n ** 64n - 1n]) {
      const e = chunk.with({ sequence: n, operation: n === 0n ? 'chat' : undefined });
      expect(AgentEnvelope.decode(e.encode()).sequence).toBe(n);
    }
  });

  it('a sequence written with a longer head than it needs is refused, as the general path refuses it', () => {
    const bytes = chunk.with({ sequence: 5n }).encode();
    const key = [0x68, ...new TextEncoder().encode('sequence')];
    const at = bytes.findIndex((_, i) => key.every((b, j) => bytes[i + j] === b)) + key.length;
    expect(bytes[at]).toBe(5);
    const splice = (head: number[]): Uint8Array => new Uint8Array([...bytes.slice(0, at), ...head, ...bytes.slice(at + 1)]);
    for (const head of [[0x18, 5], [0x19, 0, 5], [0x18, 23], [0x19, 0, 255], [0x1a, 0, 0, 0, 5]]) {
      expect(failure(splice(head)).name).toBe('CodecError');
    }
    // The shortest heads of the same neighbourhood decode.
    expect(AgentEnvelope.decode(splice([0x18, 24])).sequence).toBe(24n);
    expect(AgentEnvelope.decode(splice([0x19, 1, 0])).sequence).toBe(256n);
    expect(AgentEnvelope.decode(splice([0x19, 3, 0xff])).sequence).toBe(1023n);
    expect(AgentEnvelope.decode(splice([0x19, 4, 0])).sequence).toBe(1024n);
  });

  it('an id field of 15 or 17 bytes is refused as before (InvalidError naming the length)', () => {
    for (const n of [15, 17]) {
      const f = failure(bytesWith((m) => m.set('conversation', new Uint8Array(n))));
      expect(f).toMatchObject({ name: 'InvalidError', message: `id bytes must be 16 bytes, got ${n}` });
      expect(failure(bytesWith((m) => m.set('channel', new Uint8Array(n)))).message).toBe(`id bytes must be 16 bytes, got ${n}`);
    }
  });

  it('an id field holding text is a CodecError naming the field', () => {
    expect(failure(bytesWith((m) => m.set('correlation', 'x'.repeat(16))))).toMatchObject({ name: 'CodecError', field: 'correlation' });
  });

  it('input cut inside a short head payload fails to decode, never reads past the end', () => {
    const whole = chunk.encode();
    for (let cut = 1; cut < whole.length; cut++) {
      const f = failure(whole.slice(0, cut));
      expect(f.name).toBe('CodecError');
    }
  });

  it('an unknown short key is skipped and an unknown short kind is named', () => {
    const extra = bytesWith((m) => m.set('zz', 1));
    expect(decodeEnvelope(extra).sequence).toBe(3n);
    expect(failure(bytesWith((m) => m.set('kind', 'chunky')))).toMatchObject({ name: 'CodecError', message: '`chunky` is not a recognized agent envelope kind' });
  });

  it('keys out of canonical order still decode to the same envelope', () => {
    const value = envelopeToCborValue(chunk) as Map<string, unknown>;
    const reversed = new Map([...value].reverse());
    const decoded = decodeEnvelope(cborEncode(reversed, { avoidInts: true }));
    expect(decoded.toFields()).toEqual(decodeEnvelope(chunk.encode()).toFields());
  });

  it('operations decode to their text whether interned or not (shared first letters, near misses)', () => {
    const status = AgentEnvelope.status(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), 'card');
    const ops = ['task', 'session', 'card', 'chat', 'progress', 'quarantine', 'unquarantine', 'reasoning', 'tool_args', 'cart', 'chap', 'chat2', 'c', 'summarize', 'x'.repeat(23), 'x'.repeat(24), 'çhat'];
    for (const op of ops) {
      const value = envelopeToCborValue(status) as Map<string, unknown>;
      value.set('operation', op);
      const decoded = decodeEnvelope(cborEncode(value, { avoidInts: true }));
      expect(decoded.operation).toBe(op);
    }
  });

  it('a known key spelled one byte off is an unknown key, not the known one', () => {
    for (const near of ['channes', 'chunnel', 'sequencf', 'kinds', 'bodz', 'conversatiom']) {
      const decoded = decodeEnvelope(bytesWith((m) => m.set(near, 1)));
      expect(decoded.toFields()).toEqual(decodeEnvelope(chunk.encode()).toFields());
    }
  });

  it('the agent name cache never matches a non-ASCII cached name against its UTF-8 bytes', () => {
    // 'é' is U+00E9; its UTF-8 bytes are C3 A9. A cached 'Ã©' (U+00C3 U+00A9) has the same char
    // codes as those bytes, so a byte-to-char comparison without the ASCII rule would hit.
    expect(decodeEnvelope(bytesWith((m) => m.set('source', 'Ã©'))).source.value).toBe('Ã©');
    expect(decodeEnvelope(bytesWith((m) => m.set('source', 'é'))).source.value).toBe('é');
    expect(decodeEnvelope(bytesWith((m) => m.set('source', 'é'))).source.value).toBe('é');
  });

  it('a short agent name that is not printable ASCII meets the full rule', () => {
    expect(failure(bytesWith((m) => m.set('source', 'a\u0001b'))).name).toBe('InvalidError');
    expect(decodeEnvelope(bytesWith((m) => m.set('source', 'café'))).source.value).toBe('café');
  });
});

describe('decoded bodies', () => {
  function decodedBody(n: number): { input: Uint8Array; body: Uint8Array } {
    const body = new Uint8Array(n).map((_, i) => (i * 13 + 1) & 0xff);
    const input = AgentEnvelope.event(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), body).encode().slice();
    return { input, body: AgentEnvelope.decode(input).body };
  }

  it('a body of up to 64 bytes is a copy: reusing the input leaves it intact', () => {
    for (const n of [1, 16, 64]) {
      const { input, body } = decodedBody(n);
      const before = body.slice();
      input.fill(0);
      expect(body).toEqual(before);
      expect(body.buffer).not.toBe(input.buffer);
    }
  });

  it('a longer body is a zero-copy view into the input', () => {
    for (const n of [65, 8192]) {
      const { input, body } = decodedBody(n);
      expect(body.length).toBe(n);
      expect(body.buffer).toBe(input.buffer);
    }
  });
});
