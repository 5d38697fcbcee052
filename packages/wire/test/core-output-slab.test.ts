// The one-pass encoder writes into a shared output slab (no ArrayBuffer per encode). Its promise:
// a result is never written again, so every result the caller keeps stays byte-exact, whatever is
// encoded afterwards, fails half-way, nests inside `allocate`, or detaches a chunk. Each check
// compares against cbor2 (an independent encoder) on the same logical value.
import {
  AgentEnvelope,
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  IdempotencyKey,
  LogPosition,
  RecordId,
  decodeEnvelope,
  encodeEnvelope,
  encodeEnvelopeInto,
  encodeEnvelopeUnsigned,
  InvalidError,
} from '@agdx/wire';
import { encode as cborEncode } from 'cbor2';
import { describe, expect, it } from 'vitest';
import { envelopeToCborValue } from './support/cbor-value.js';
import { toHex } from './support/fixtures.js';

const expected = (e: AgentEnvelope): string => toHex(cborEncode(envelopeToCborValue(e), { avoidInts: true }));

/** Byte equality without building hex strings (the large outputs would make this test slow). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 13 + seed) & 0xff;
  return out;
}

function command(i: number, bodyBytes: number): AgentEnvelope {
  return AgentEnvelope.command(
    RecordId.fromBigInt(BigInt(i) + 1n),
    ConversationId.fromBigInt(BigInt(i) + 1000n),
    AgentId.new(`agent-${i}`),
    CorrelationId.fromBigInt(BigInt(i) + 2000n),
    bytes(bodyBytes, i),
  ).withOperation('chat');
}

describe('encoder output slab', () => {
  it('keeps every result intact across many encodings, chunk changes and outputs larger than a chunk', () => {
    // Sizes from a few bytes to well past the 64 KiB chunk, in an order that leaves odd tails.
    const sizes = [0, 16, 100, 8192, 3, 70_000, 16, 8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192, 200_000, 1, 500];
    const envs: AgentEnvelope[] = [];
    for (let round = 0; round < 4; round++) for (const n of sizes) envs.push(command(envs.length, n));
    const kept = envs.map((e) => encodeEnvelope(e));
    const copies = kept.map((b) => b.slice());
    // Nothing written later may have touched an earlier result.
    let intact = 0;
    for (let i = 0; i < envs.length; i++) {
      const independent = cborEncode(envelopeToCborValue(envs[i] as AgentEnvelope), { avoidInts: true });
      if (sameBytes(kept[i] as Uint8Array, copies[i] as Uint8Array) && sameBytes(kept[i] as Uint8Array, independent)) intact++;
    }
    expect(intact).toBe(envs.length);
  });

  it('an encoding that reaches the end of a chunk at any byte moves intact (every field, every offset)', () => {
    // Places the end of the current chunk k bytes into the next encoding, for every k up to past its
    // length, so the move to a new chunk happens inside every head, key, id, text and body in turn.
    const target = command(42, 20)
      .withTarget(AgentId.new('ünïcödé-target'))
      .withMetadata('note', 'é'.padStart(23, 'a'))
      .withMetadata('ascii', 'plain text value')
      .withMetadata('big', 123_456_789_012n)
      .withMetadata('ratio', 0.1)
      .withMetadata('list', ['x', 'ÿ', null, true]);
    const want = cborEncode(envelopeToCborValue(target), { avoidInts: true });
    const filler = (bodyBytes: number): AgentEnvelope => command(7, bodyBytes);
    // Encoded size of a filler, measured without touching the slab (allocate copies out).
    const sizeOf = (bodyBytes: number): number => encodeEnvelope(filler(bodyBytes), { allocate: (n) => new Uint8Array(n) }).length;
    const minFiller = sizeOf(1);
    /** A body length whose filler encodes to exactly `size` bytes, or -1 (head-size steps skip some). */
    function bodyFor(size: number): number {
      for (let body = Math.max(1, size - minFiller - 4); body <= size; body++) {
        const got = sizeOf(body);
        if (got === size) return body;
        if (got > size) return -1;
      }
      return -1;
    }
    /** Bytes left in the current chunk, read from a probe (which itself takes minFiller bytes). */
    function left(): number {
      const probe = encodeEnvelope(filler(1));
      return probe.buffer.byteLength - probe.byteOffset - probe.length;
    }
    /** Encodes fillers until exactly `k` bytes are left in the current chunk. */
    function leave(k: number): boolean {
      for (let step = 0; step < 6; step++) {
        const rem = left();
        if (rem === k) return true;
        const gap = rem - k;
        if (gap < minFiller + 8) {
          // No filler is that small: spill into a fresh chunk and aim again from there.
          encodeEnvelope(filler(rem + 1));
          continue;
        }
        // Leave room for the next probe, which the loop reads positions with.
        const body = bodyFor(gap - minFiller);
        if (body > 0) encodeEnvelope(filler(body));
      }
      return false;
    }
    let exact = 0;
    for (let k = 0; k < want.length + 4; k++) {
      expect(leave(k + minFiller)).toBe(true);
      encodeEnvelope(filler(1));
      const out = encodeEnvelope(target);
      if (sameBytes(out, want)) exact++;
    }
    expect(exact).toBe(want.length + 4);
  });

  it('a caller writing into one result changes no other result', () => {
    const a = encodeEnvelope(command(1, 40));
    const b = encodeEnvelope(command(2, 40));
    const bBefore = toHex(b);
    a.fill(0xee);
    expect(toHex(b)).toBe(bBefore);
    const c = encodeEnvelope(command(3, 40));
    expect(toHex(c)).toBe(expected(command(3, 40)));
    expect(a.every((x) => x === 0xee)).toBe(true);
  });

  it('an encoding that fails half-way leaves earlier results and the next encoding correct', () => {
    const before = encodeEnvelope(command(4, 64));
    const beforeHex = toHex(before);
    // A chunk whose sequence is out of the u64 range fails after several fields are written.
    const bad = AgentEnvelope.chunk(
      ConversationId.fromBigInt(9n),
      AgentId.new('writer'),
      CorrelationId.fromBigInt(8n),
      ChannelId.fromBigInt(7n),
      1,
      bytes(32, 1),
    ).with({ sequence: -1n });
    expect(() => encodeEnvelope(bad)).toThrow(InvalidError);
    expect(toHex(before)).toBe(beforeHex);
    const after = command(5, 64);
    expect(toHex(encodeEnvelope(after))).toBe(expected(after));
  });

  it('an encoding nested inside `allocate` gets its own buffer and both results are exact', () => {
    const outer = command(6, 300);
    const inner = command(7, 20);
    let innerBytes: Uint8Array | undefined;
    const out = encodeEnvelope(outer, {
      allocate: (n) => {
        innerBytes = encodeEnvelope(inner);
        return new Uint8Array(n);
      },
    });
    expect(toHex(out)).toBe(expected(outer));
    expect(toHex(innerBytes as Uint8Array)).toBe(expected(inner));
    // And the slab is usable afterwards.
    expect(toHex(encodeEnvelope(inner))).toBe(expected(inner));
  });

  it('`allocate` receives the exact size and holds a copy, not a view of the slab', () => {
    const env = command(8, 8192);
    const pool = new Uint8Array(20_000);
    const out = encodeEnvelope(env, { allocate: (n) => pool.subarray(100, 100 + n) });
    expect(out.buffer).toBe(pool.buffer);
    expect(toHex(out)).toBe(expected(env));
    expect(() => encodeEnvelope(env, { allocate: (n) => new Uint8Array(n + 1) })).toThrow(InvalidError);
  });

  it('survives a caller that transfers (detaches) a result buffer', () => {
    const first = encodeEnvelope(command(9, 10));
    structuredClone(first.buffer, { transfer: [first.buffer] });
    expect(first.length).toBe(0);
    const next = command(10, 10);
    expect(toHex(encodeEnvelope(next))).toBe(expected(next));
  });

  it('text whose UTF-8 length needs a longer head than its UTF-16 length round-trips exactly', () => {
    // 23 UTF-16 units but 24+ UTF-8 bytes, 255 units but 256+ bytes, a lone surrogate, astral text.
    const texts = ['é'.padStart(23, 'a'), 'ü'.padEnd(255, 'b'), `x${'\ud800'}y`, '𝄞 music', 'ascii-only'];
    for (const [i, t] of texts.entries()) {
      const env = command(11 + i, 8).withMetadata('note', t).withMetadata(t, 1n);
      const out = encodeEnvelope(env);
      expect(toHex(out)).toBe(expected(env));
      expect(decodeEnvelope(out).metadata?.get('note')).toBe(t.replace('\ud800', '\ufffd'));
    }
  });

  it('an envelope with all 24 keys gets the two-byte map head, in the slab, into a target and unsigned', () => {
    // Every key at once is not a valid envelope (channel with task_state, ...), but the low-level
    // encoder writes what it is given; 24 is the only count whose map head takes two bytes.
    const all = AgentEnvelope.fromFields({
      kind: 'error',
      record: RecordId.fromBigInt(1n),
      conversation: ConversationId.fromBigInt(2n),
      parent: ConversationId.fromBigInt(3n),
      root: ConversationId.fromBigInt(4n),
      source: AgentId.new('source'),
      target: AgentId.new('target'),
      cause: RecordId.fromBigInt(5n),
      causeAt: new LogPosition(1, 2, 3, 4n),
      correlation: CorrelationId.fromBigInt(6n),
      channel: ChannelId.fromBigInt(7n),
      idempotencyKey: IdempotencyKey.new('key-1'),
      deadlineMicros: 8n,
      sequence: 9n,
      last: true,
      finishReason: 'stop',
      taskState: 4,
      operation: 'chat',
      tool: 'search',
      usage: { inputTokens: 1n, outputTokens: 2n, costMicros: 3n },
      metadata: new Map([['k', 'v']]),
      mustUnderstand: 1n,
      body: bytes(40, 3),
      signature: { scheme: 1, keyId: bytes(8, 1), bytes: bytes(64, 2) },
    });
    const out = encodeEnvelope(all);
    expect(out[0]).toBe(0xb8);
    expect(out[1]).toBe(24);
    expect(toHex(out)).toBe(expected(all));
    const target = new Uint8Array(out.length + 3);
    expect(encodeEnvelopeInto(all, target, 3)).toBe(out.length);
    expect(toHex(target.subarray(3))).toBe(toHex(out));
    expect(() => encodeEnvelopeInto(all, new Uint8Array(out.length - 1))).toThrow(InvalidError);
    // Without the signature 23 keys remain: a one-byte head.
    expect(toHex(encodeEnvelopeUnsigned(all))).toBe(expected(all.with({ signature: undefined })));
  });

  it('the unsigned span is written by the same writer and matches the envelope without signature', () => {
    const env = command(20, 100);
    expect(toHex(encodeEnvelopeUnsigned(env))).toBe(toHex(encodeEnvelope(env)));
  });
});
