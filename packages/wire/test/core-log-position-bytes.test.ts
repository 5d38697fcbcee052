// LogPosition is read and written byte by byte (fromBytes, writeTo, and the decoder's cause_at read
// straight from its input). Held here to a DataView over any bytes at any offset, from a Node
// Buffer too, and to one error for a wrong length wherever the 20 bytes come from.
import { AgdxError, AgentEnvelope, AgentId, ConversationId, InvalidError, LogPosition, RecordId } from '@agdx/wire';
import { encode as cborEncode } from 'cbor2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envelopeToCborValue } from './support/cbor-value.js';

const u32 = fc.oneof(fc.constantFrom(0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff), fc.nat({ max: 0xffff_ffff }));
const u64 = fc.oneof(
  fc.constantFrom(0n, 1n, 0xffff_ffffn, 0x1_0000_0000n, 0x1_0000_0001n, (1n << 53n) + 1n, 1n << 63n, (1n << 64n) - 1n),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
);

function parts(p: LogPosition): [number, number, number, bigint] {
  return [p.streamId, p.topicId, p.partitionId, p.offset];
}

/** The error a call throws (undefined when it returns). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const event = AgentEnvelope.event(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), new Uint8Array([1]));

/** An event's wire bytes whose `cause_at` is `value` (cbor2 writes whatever it is given). */
function withCauseAt(value: unknown): Uint8Array {
  const map = envelopeToCborValue(event.withCause(RecordId.fromBigInt(7n), new LogPosition(1, 2, 3, 4n)));
  map.set('cause_at', value);
  return cborEncode(map);
}

describe('LogPosition bytes', () => {
  it('reads any 20 bytes as a big-endian DataView does, from a plain array, an offset view or a pooled Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat({ max: 9 }), (bytes, at) => {
        const view = new DataView(bytes.buffer);
        const want = [view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getBigUint64(12)];
        const padded = new Uint8Array(at + 25).fill(0xee);
        padded.set(bytes, at);
        const pooled = Buffer.concat([Buffer.alloc(at, 0xee), Buffer.from(bytes), Buffer.alloc(3, 0xee)]).subarray(at, at + 20);
        for (const input of [bytes, padded.subarray(at, at + 20), pooled]) expect(parts(LogPosition.fromBytes(input))).toEqual(want);
        // And through an envelope: the decoder reads the same 20 bytes straight from its input.
        expect(parts(AgentEnvelope.decode(withCauseAt(bytes)).causeAt as LogPosition)).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });

  it('writes what a big-endian DataView writes, at any offset, touching nothing around it', () => {
    fc.assert(
      fc.property(u32, u32, u32, u64, fc.nat({ max: 9 }), (stream, topic, partition, offset, at) => {
        const position = new LogPosition(stream, topic, partition, offset);
        const out = new Uint8Array(at + 24).fill(0xa5);
        position.writeTo(out.subarray(1), at);
        const want = new Uint8Array(at + 24).fill(0xa5);
        const view = new DataView(want.buffer, 1 + at, 20);
        view.setUint32(0, stream);
        view.setUint32(4, topic);
        view.setUint32(8, partition);
        view.setBigUint64(12, offset);
        expect(out).toEqual(want);
        expect(position.toBytes()).toEqual(want.slice(1 + at, 21 + at));
        expect(parts(AgentEnvelope.decode(event.withCause(RecordId.fromBigInt(7n), position).encode().slice()).causeAt as LogPosition)).toEqual([stream, topic, partition, offset]);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any other length with one InvalidError, from fromBytes and from a decoded cause_at alike', () => {
    for (let n = 0; n <= 40; n++) {
      if (n === 20) continue;
      const direct = thrown(() => LogPosition.fromBytes(new Uint8Array(n)));
      expect(direct).toBeInstanceOf(InvalidError);
      expect((direct as Error).message).toBe(`log position must be 20 bytes, got ${n}`);
      const decoded = thrown(() => AgentEnvelope.decode(withCauseAt(new Uint8Array(n))));
      expect(AgdxError.is(decoded)).toBe(true);
      const chain: unknown[] = [];
      for (let e = decoded; e !== undefined && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
      const inner = chain.find((e) => e instanceof InvalidError) as InvalidError | undefined;
      expect(inner?.message).toBe(`log position must be 20 bytes, got ${n}`);
      expect(inner?.context).toEqual({ got: n });
    }
    // Not bytes at all: the field's own shape error, typed.
    for (const value of [0, 'x', true, null, [1, 2], new Map()]) {
      const decoded = thrown(() => AgentEnvelope.decode(withCauseAt(value)));
      expect(AgdxError.is(decoded)).toBe(true);
    }
    // Not a Uint8Array: fromBytes reports 0 bytes, as it always has.
    expect((thrown(() => LogPosition.fromBytes([1, 2, 3] as unknown as Uint8Array)) as Error).message).toBe('log position must be 20 bytes, got 0');
  });
});
