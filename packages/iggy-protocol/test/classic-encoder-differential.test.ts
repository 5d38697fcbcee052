// The classic SendMessages encoder (one measuring pass, then index and 64-byte headers written
// straight into a possibly reused buffer, the clock split into two 32-bit stores, ids copied from
// a pre-stamped pool) against the plain reference writer: same bytes for any mix of payload
// sizes, ids, header maps, raw header blocks and origin timestamps, into fresh and dirty buffers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLASSIC_REQUEST_HEADER_SIZE, decodeSendMessagesRequest, encodeSendMessagesRequest, partitioning, randomMessageId } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { outgoingMessageArb } from './support/outgoing-message-arbitraries.js';
import { plainClassicBody } from './support/plain-classic-body.js';

const messageArb = outgoingMessageArb(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));

const isUuidV4 = (id: bigint): boolean => ((id >> 76n) & 0xfn) === 4n && ((id >> 62n) & 0x3n) === 2n;

describe('classic SendMessages encoder', () => {
  it('writes the same bytes as the plain writer, fresh or behind the headroom of a reused dirty buffer', () => {
    // One buffer for every run: each encode lands on the bytes the previous one left.
    const dirty = new Uint8Array(64 * 1024).fill(0xa5);
    fc.assert(
      fc.property(
        fc.array(messageArb, { minLength: 1, maxLength: 40 }),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.integer({ min: 0, max: 0xffff_fffe }),
        fc.integer({ min: 0, max: 255 }),
        (messages, now, partitionId, fill) => {
          const req = { stream: 'stream-a', topic: 't', partitioning: partitioning.partitionId(partitionId), messages };
          const plain = plainClassicBody('stream-a', 't', partitionId, messages, () => now);
          expect(encodeSendMessagesRequest(req, 'classic', { nowMicros: () => now })).toEqual(plain);
          const body = encodeSendMessagesRequest(req, 'classic', {
            nowMicros: () => now,
            headroom: CLASSIC_REQUEST_HEADER_SIZE,
            allocate: (n) => (n <= dirty.length ? dirty : new Uint8Array(n).fill(fill)),
          });
          expect(body).toEqual(plain);
          if (body.buffer === dirty.buffer) dirty.fill(fill, CLASSIC_REQUEST_HEADER_SIZE + body.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("with classicIds: 'random', differs from the plain bytes only in the minted ids, which are distinct UUID v4s", () => {
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 40 }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (messages, now) => {
        const req = { stream: 'stream-a', topic: 't', partitioning: partitioning.partitionId(0), messages };
        const dirty = new Uint8Array(64 * 1024).fill(0xff);
        const body = encodeSendMessagesRequest(req, 'classic', { nowMicros: () => now, classicIds: 'random', allocate: (n) => (n <= dirty.length ? dirty : new Uint8Array(n)) });
        const decoded = decodeSendMessagesRequest(body, 'classic').messages;
        const minted = decoded.filter((_, i) => (messages[i]?.id ?? 0n) === 0n).map((m) => m.id);
        for (const id of minted) expect(isUuidV4(id)).toBe(true);
        expect(new Set(minted).size).toBe(minted.length);
        // With the minted ids put in, the plain writer gives the same body.
        const withIds = messages.map((m, i) => ({ ...m, id: decoded[i]?.id ?? 0n }));
        expect(body).toEqual(plainClassicBody('stream-a', 't', 0, withIds, () => now));
      }),
      { numRuns: 200 },
    );
  });

  it('mints UUID v4 ids across pool refills, as bigints and on the wire', () => {
    // More than one pool of 4,096 ids, so refilled ids are checked too.
    const ids = Array.from({ length: 9000 }, () => randomMessageId());
    expect(ids.every(isUuidV4)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const messages = Array.from({ length: 5000 }, () => ({ payload: Uint8Array.of(7) }));
    const body = encodeSendMessagesRequest({ stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages }, 'classic', { classicIds: 'random' });
    const wire = decodeSendMessagesRequest(body, 'classic').messages.map((m) => m.id);
    expect(wire.every(isUuidV4)).toBe(true);
    expect(new Set([...wire, ...ids]).size).toBe(wire.length + ids.length);
    // VSR batches mint from the same pool, on their loop for bare payloads and on the general one.
    const vsr = [
      ...decodeSendMessagesRequest(encodeSendMessagesRequest({ stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages }, 'vsr'), 'vsr').messages,
      ...decodeSendMessagesRequest(encodeSendMessagesRequest({ stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages: messages.map((m, i) => (i % 2 === 0 ? { ...m, originTimestamp: 7n } : m)) }, 'vsr', { nowMicros: () => 9n }), 'vsr').messages,
    ].map((m) => m.id);
    expect(vsr.every(isUuidV4)).toBe(true);
    expect(new Set([...vsr, ...wire, ...ids]).size).toBe(vsr.length + wire.length + ids.length);
  });
  it('splits clocks and origins at the 32- and 64-bit edges exactly, and reads the clock once per batch', () => {
    const edges = [0n, 1n, (1n << 31n) - 1n, 1n << 31n, (1n << 32n) - 1n, 1n << 32n, (1n << 32n) + 1n, (1n << 53n) + 1n, (1n << 63n) - 1n, 1n << 63n, (1n << 64n) - 2n, (1n << 64n) - 1n];
    const edge = fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
    const message: fc.Arbitrary<OutgoingMessage> = fc.record({ payload: fc.uint8Array({ maxLength: 8 }), originTimestamp: edge }, { requiredKeys: ['payload'] });
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 12 }), edge, (messages, start) => {
        // A clock that moves on every call: a writer reading it per message, or not at all when
        // every message has its own origin, differs from the plain one.
        const clock = (): (() => bigint) => {
          let t = start;
          return () => {
            const now = t;
            t = t === (1n << 64n) - 1n ? 0n : t + 1n;
            return now;
          };
        };
        const req = { stream: 'stream-a', topic: 't', partitioning: partitioning.partitionId(1), messages };
        const plain = plainClassicBody('stream-a', 't', 1, messages, clock());
        const dirty = new Uint8Array(plain.length + CLASSIC_REQUEST_HEADER_SIZE).fill(0xff);
        expect(encodeSendMessagesRequest(req, 'classic', { nowMicros: clock(), headroom: CLASSIC_REQUEST_HEADER_SIZE, allocate: () => dirty })).toEqual(plain);
        const decoded = decodeSendMessagesRequest(plain, 'classic').messages;
        const shared = messages.some((m) => m.originTimestamp === undefined) ? start : undefined;
        expect(decoded.map((m) => m.originTimestamp)).toEqual(messages.map((m) => m.originTimestamp ?? shared));
      }),
      { numRuns: 500 },
    );
  });
});
