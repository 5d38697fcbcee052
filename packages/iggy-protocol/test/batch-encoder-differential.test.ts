// The optimised VSR batch writer (one pass, lazily built per-message arrays, ids and checksums
// written straight into the frames) against the plain reference writer: same bytes for any mix
// of ids, header maps, raw header blocks and origin timestamps, and sound fresh ids.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMessageBatch, decodeSendMessagesRequest, encodeMessageBatch, encodeSendMessagesRequest, encodeUserHeaders, IggyInvalidError, initChecksums, partitioning } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { outgoingMessageArb } from './support/outgoing-message-arbitraries.js';
import { plainMessageBatch } from './support/plain-message-batch.js';

beforeAll(async () => {
  await initChecksums();
});

const messageArb = outgoingMessageArb(fc.bigInt({ min: 1_700_000_000_000_000n, max: 1_700_000_000_000_000n + 0xffff_ffffn }));

/** A deterministic id source, one per encoder, so both sides mint the same ids. */
function counter(): () => bigint {
  let next = 0xabcdn;
  return () => (next += 0x1_0000_0001n);
}

describe('optimised VSR batch encoder', () => {
  it('writes the same bytes as the plain writer', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 40 }), fc.bigInt({ min: 1_700_000_000_000_000n, max: 1_700_000_000_000_000n + 1000n }), (messages, now) => {
        const plain = plainMessageBatch(messages, counter(), () => now);
        const fast = encodeMessageBatch(messages, { newId: counter(), nowMicros: () => now });
        expect(fast).toEqual(plain);
      }),
      { numRuns: 300 },
    );
  });

  it('writes the same batch inside a SendMessages body, which decodes with verified checksums', () => {
    const messages: OutgoingMessage[] = Array.from({ length: 50 }, (_, i) => ({ payload: new Uint8Array(100).fill(i), ...(i % 7 === 0 ? { headers: new Map([['k', { kind: 'raw' as const, value: Uint8Array.of(i) }]]) } : {}) }));
    const body = encodeSendMessagesRequest({ stream: 's', topic: 't', partitioning: partitioning.partitionId(3), messages }, 'vsr', { newId: counter(), nowMicros: () => 5n });
    const decoded = decodeSendMessagesRequest(body, 'vsr', { verifyChecksums: true });
    expect(decoded.batch?.bytes).toEqual(plainMessageBatch(messages, counter(), () => 5n));
    expect(decoded.messages.map((m) => m.payload[0])).toEqual(messages.map((_, i) => i));
  });

  it('mints distinct random UUID v4 ids when none are given, and the checksums verify', () => {
    const messages = Array.from({ length: 600 }, () => ({ payload: Uint8Array.of(1, 2, 3) }));
    const batch = decodeMessageBatch(encodeMessageBatch(messages), 0, { verifyChecksums: true });
    const ids = batch.frames.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).not.toBe(0n);
      expect((id >> 76n) & 0xfn).toBe(4n); // version nibble
      expect((id >> 62n) & 0x3n).toBe(2n); // RFC 4122 variant
    }
  });

  it('still refuses bad input with typed errors', () => {
    expect(() => encodeMessageBatch([])).toThrow(expect.objectContaining({ kind: 'invalid' }));
    expect(() => encodeMessageBatch([{ payload: new Uint8Array(1), id: 1n << 128n }])).toThrow(expect.objectContaining({ kind: 'invalid' }));
    expect(() => encodeMessageBatch([{ payload: new Uint8Array(1), originTimestamp: 0n }, { payload: new Uint8Array(1), originTimestamp: 1n << 33n }])).toThrow(
      expect.objectContaining({ kind: 'invalid' }),
    );
    expect(() => encodeMessageBatch([{ payload: 'x' as unknown as Uint8Array }])).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });
});

describe('SendMessages body with headroom and an in-place VSR frame', () => {
  it('writes the same body behind the headroom of a reused, dirty buffer, and the frame around it matches a copied frame', async () => {
    const { VsrClientSession, VSR_HEADER_SIZE, decodeVsrRequestFrame, encodeVsrReplyFrame, encodeResultSection, encodeRegisterReply } = await import('@agdx/iggy-protocol');
    const registered = (): InstanceType<typeof VsrClientSession> => {
      const s = new VsrClientSession({ clientId: 7n });
      const h = decodeVsrRequestFrame(s.register({ username: 'u', password: 'p' }).frame).header;
      const reply = encodeRegisterReply({ userId: 0, session: 5n, serverProtocolVersion: 11264, serverVersion: 'test' });
      s.handleFrame(encodeVsrReplyFrame({ client: h.client, request: h.request, operation: h.operation }, encodeResultSection([], reply)));
      return s;
    };
    const messages: OutgoingMessage[] = Array.from({ length: 5 }, (_, i) => ({ id: BigInt(i + 1), payload: new Uint8Array(30 + i).fill(i), originTimestamp: 1_700_000_000_000_000n }));
    const req = { stream: 's', topic: 't', partitioning: partitioning.partitionId(2), messages };
    const plain = encodeSendMessagesRequest(req, 'vsr');
    const dirty = new Uint8Array(4096).fill(0xee);
    const body = encodeSendMessagesRequest(req, 'vsr', { headroom: VSR_HEADER_SIZE, allocate: (n) => (n <= dirty.length ? dirty : new Uint8Array(n)) });
    expect(body.buffer).toBe(dirty.buffer);
    expect(body.byteOffset).toBe(VSR_HEADER_SIZE);
    expect([...body]).toEqual([...plain]);
    const a = registered();
    const b = registered();
    const copied = a.command(101, plain).frame;
    const inPlace = b.command(101, body, true).frame;
    expect(inPlace.buffer).toBe(dirty.buffer);
    expect([...inPlace]).toEqual([...copied]);
    expect(() => b.command(101, plain, true)).toThrow(/256 bytes before the body/);
  });

  it('classic: writes the same body behind the headroom of a reused, dirty buffer, and the in-place frame matches a copied frame', async () => {
    const { ClassicClientSession, CLASSIC_REQUEST_HEADER_SIZE, encodeClassicRequest, encodeIdentityResponse, encodeClassicResponse } = await import('@agdx/iggy-protocol');
    const messages: OutgoingMessage[] = [
      { id: 9n, payload: new Uint8Array(30).fill(1), originTimestamp: 1_700_000_000_000_000n },
      { payload: new Uint8Array(7).fill(2), headers: new Map([['k', { kind: 'raw' as const, value: Uint8Array.of(3) }]]) },
      { payload: new Uint8Array(0), rawHeaders: encodeUserHeaders(new Map([['h', { kind: 'raw' as const, value: Uint8Array.of(4, 5) }]])) },
      { id: 0n, payload: new Uint8Array(100).fill(6) },
    ];
    const req = { stream: 's', topic: 't', partitioning: partitioning.partitionId(1), messages };
    const options = { nowMicros: () => 1_700_000_000_000_123n };
    const plain = encodeSendMessagesRequest(req, 'classic', options);
    const dirty = new Uint8Array(4096).fill(0xee);
    const body = encodeSendMessagesRequest(req, 'classic', { ...options, headroom: CLASSIC_REQUEST_HEADER_SIZE, allocate: (n) => (n <= dirty.length ? dirty : new Uint8Array(n)) });
    expect(body.buffer).toBe(dirty.buffer);
    expect(body.byteOffset).toBe(CLASSIC_REQUEST_HEADER_SIZE);
    expect([...body]).toEqual([...plain]);
    const session = new ClassicClientSession();
    session.login({ username: 'u', password: 'p' });
    session.handleFrame(encodeClassicResponse(0, encodeIdentityResponse(1)));
    const inPlace = session.command(101, body, true).frame;
    expect(inPlace.buffer).toBe(dirty.buffer);
    expect([...inPlace]).toEqual([...encodeClassicRequest(101, plain)]);
    expect(() => session.command(101, plain, true)).toThrow(/8 bytes before the payload/);
  });

  it('refuses an allocator that gives too few bytes and a negative headroom', () => {
    const req = { stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages: [{ payload: new Uint8Array(10) }] };
    expect(() => encodeSendMessagesRequest(req, 'vsr', { allocate: () => new Uint8Array(4) })).toThrow(/allocate gave fewer/);
    expect(() => encodeSendMessagesRequest(req, 'vsr', { headroom: -1 })).toThrow(/headroom/);
  });

  it('refuses a body that would not fit a u32 frame size before asking for a buffer', () => {
    const req = { stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages: [{ payload: new Uint8Array(10) }] };
    let asked = 0;
    const allocate = (n: number): Uint8Array => {
      asked += 1;
      return new Uint8Array(n);
    };
    expect(() => encodeSendMessagesRequest(req, 'vsr', { headroom: 0xffff_ff00, allocate })).toThrow(IggyInvalidError);
    expect(asked).toBe(0);
  });
});

describe('classic SendMessages ids', () => {
  const isUuidV4 = (id: bigint): boolean => ((id >> 76n) & 0xfn) === 4n && ((id >> 62n) & 0x3n) === 2n;

  it("sends 0 for a message without an id by default, and a fresh random UUID v4 with classicIds: 'random'; a given id goes as it is", () => {
    const messages: OutgoingMessage[] = [{ payload: new Uint8Array([1]) }, { payload: new Uint8Array([2]), id: 0n }, { payload: new Uint8Array([3]), id: (1n << 100n) + 7n }];
    const req = { stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages };
    const plain = decodeSendMessagesRequest(encodeSendMessagesRequest(req, 'classic', { nowMicros: () => 5n }), 'classic').messages;
    expect(plain.map((m) => m.id)).toEqual([0n, 0n, (1n << 100n) + 7n]);
    const minted = decodeSendMessagesRequest(encodeSendMessagesRequest(req, 'classic', { nowMicros: () => 5n, classicIds: 'random' }), 'classic').messages;
    expect(minted[2]?.id).toBe((1n << 100n) + 7n);
    expect(isUuidV4(minted[0]?.id ?? 0n) && isUuidV4(minted[1]?.id ?? 0n)).toBe(true);
    expect(minted[0]?.id).not.toBe(minted[1]?.id);
    // Everything but the minted ids is the same as the default encoding.
    expect(minted.map((m) => [m.payload, m.originTimestamp, m.rawHeaders])).toEqual(plain.map((m) => [m.payload, m.originTimestamp, m.rawHeaders]));
  });
});
