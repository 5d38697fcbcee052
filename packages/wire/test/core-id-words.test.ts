// Machine ids keep their value as four 32-bit words and are read straight out of decoder input.
// Held to BigInt arithmetic and plain byte copies for random values (high bits set included, where
// a 32-bit word is negative as a signed integer), and to the decoder at unaligned offsets.
import { ChannelId, ConversationId, CorrelationId, RecordId, AgentEnvelope, AgentId } from '@agdx/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from './support/fixtures.js';

const bigOf = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${toHex(b)}`));

describe('machine id words', () => {
  it('round-trips bytes, bigint, text and equality for random values', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), (a, b) => {
        const id = RecordId.fromBytes(a);
        expect(toHex(id.toBytes())).toBe(toHex(a));
        expect(id.toBigInt()).toBe(bigOf(a));
        expect(RecordId.fromBigInt(bigOf(a)).equals(id)).toBe(true);
        expect(RecordId.parse(id.toString()).equals(id)).toBe(true);
        expect(id.equals(CorrelationId.fromBytes(b))).toBe(toHex(a) === toHex(b));
      }),
      { numRuns: 300 },
    );
  });

  it('is unaffected by later changes to the array it was built from, and toBytes is a fresh copy', () => {
    const bytes = new Uint8Array(16).fill(0xff);
    const id = ChannelId.fromBytes(bytes);
    bytes.fill(0);
    expect(id.toBigInt()).toBe((1n << 128n) - 1n);
    const out = id.toBytes();
    out[0] = 0;
    expect(id.toBytes()[0]).toBe(0xff);
    expect(id.toString()).toBe('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
  });

  it('the decoder reads ids at any offset of any buffer exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.nat(31), (r, c, pad) => {
        const e = AgentEnvelope.event(RecordId.fromBigInt(r), ConversationId.fromBigInt(c), AgentId.new('a'), Uint8Array.of(1));
        const bytes = e.encode();
        const host = new Uint8Array(pad + bytes.length + 7);
        host.set(bytes, pad);
        const back = AgentEnvelope.decode(host.subarray(pad, pad + bytes.length));
        expect(back.record?.toBigInt()).toBe(r);
        expect(back.conversation.toBigInt()).toBe(c);
      }),
      { numRuns: 200 },
    );
  });

  it('the words constructor takes only four int32 words', () => {
    const Words = RecordId as unknown as new (...words: unknown[]) => RecordId;
    expect(new Words(-1, 0, 0, 1).toBigInt()).toBe((0xffffffffn << 96n) | 1n);
    expect(new Words(-1, 0, 0, 1).equals(RecordId.fromBigInt((0xffffffffn << 96n) | 1n))).toBe(true);
    for (const bad of [[1.5, 0, 0, 0], [2 ** 32, 0, 0, 0], [0, 0, 0], [0, 0, 0, '1'], [0, Number.NaN, 0, 0]]) {
      expect(() => new Words(...bad)).toThrow(/id words must be four 32-bit integers/);
    }
  });

  it('ids compare by value structurally, and showing one as text never makes equal ids differ', () => {
    const a = ConversationId.fromBigInt(42n);
    const b = ConversationId.fromBigInt(42n);
    a.toString();
    expect(a).toEqual(b);
    expect(a).not.toEqual(ConversationId.fromBigInt(43n));
    expect(Object.keys(a)).toEqual([]);
    expect(JSON.stringify({ a })).toBe(`{"a":"${b.toString()}"}`);
  });

  it('every way of making an id gives an instance of its class with the same value', () => {
    const bytes = RecordId.fromBigInt(7n).toBytes();
    const made = [new RecordId(bytes), RecordId.fromBytes(bytes), RecordId.parse(RecordId.fromBigInt(7n).toString()), AgentEnvelope.decode(AgentEnvelope.command(new RecordId(bytes), ConversationId.fromBigInt(1n), AgentId.new('a'), CorrelationId.fromBigInt(2n), new Uint8Array([1])).encode()).record as RecordId];
    for (const id of made) {
      expect(id).toBeInstanceOf(RecordId);
      expect(id.constructor).toBe(RecordId);
      expect(id.toBigInt()).toBe(7n);
      expect(id.equals(made[0])).toBe(true);
    }
    class Sub extends ChannelId {}
    expect(new Sub(ChannelId.fromBigInt(3n).toBytes())).toBeInstanceOf(Sub);
  });

  it('the Crockford text of many ids sharing a text-cache slot stays right', () => {
    const ids = Array.from({ length: 300 }, (_, i) => CorrelationId.fromBigInt(BigInt(i) << 70n));
    const texts = ids.map((id) => id.toString());
    ids.reverse().forEach((id, i) => expect(id.toString()).toBe(texts[299 - i]));
    expect(CorrelationId.parse(texts[5] as string).equals(CorrelationId.fromBigInt(5n << 70n))).toBe(true);
  });
});
