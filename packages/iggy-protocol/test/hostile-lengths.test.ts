// Hostile lengths and counts into the decoders: valid encodings with a count or length field
// overwritten by a claim (far past the bytes, past u32 arithmetic, past 2^53), truncated or
// flipped. Every decoder returns a value or throws the package's typed error, and the value holds
// no more elements than its input has bytes: the work bound, counted, never timed.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import * as P from '@agdx/iggy-protocol';
import { IggyCodecError, IggyProtocolError, headerValue, partitioning } from '@agdx/iggy-protocol';
import { utf8 } from './helpers.js';

beforeAll(async () => {
  await P.initChecksums();
});

const SEED = Number(process.env.FUZZ_SEED ?? 20261203);

const headers = new Map([['k', headerValue.uint32(7)], ['s', headerValue.string('v')]]);
const messages = [{ id: 1n, payload: utf8('hello'), headers, originTimestamp: 5n }, { id: 2n, payload: utf8('x'), originTimestamp: 6n }];
const stamped = (): Uint8Array => P.stampMessageBatch(P.encodeMessageBatch(messages), { partitionId: 1, baseOffset: 10n, baseTimestamp: 20n });
const topic = (protocol: P.IggyProtocol): P.TopicDetails => ({
  id: 1, createdAt: 1n, partitionsCount: 2, messageExpiry: 0n, compression: 1, maxTopicSize: 0n, sizeBytes: 0n, messagesCount: 0n, name: 't',
  ...(protocol === 'vsr' ? { options: new Map([['segment_size', headerValue.uint64(512n)]]), derivedOptions: new Map() } : { replicationFactor: 1 }),
  partitions: [0, 1].map((id) => ({ id, createdAt: 1n, segmentsCount: 1, currentOffset: 0n, sizeBytes: 0n, messagesCount: 0n })),
});
const stream = (protocol: P.IggyProtocol): P.StreamInfo => ({ id: 1, createdAt: 1n, topicsCount: 0, sizeBytes: 0n, messagesCount: 0n, name: 's', ...(protocol === 'vsr' ? { options: new Map() } : {}) });

interface Decoder {
  readonly name: string;
  readonly sample: () => Uint8Array;
  readonly decode: (bytes: Uint8Array) => unknown;
}

const decoders: Decoder[] = [
  { name: 'decodeMessageBatch', sample: stamped, decode: (b) => P.decodeMessageBatch(b, 0, { verifyChecksums: true, strict: false }) },
  { name: 'computeBatchChecksum', sample: stamped, decode: (b) => P.computeBatchChecksum(b) },
  { name: 'stampMessageBatch', sample: () => P.encodeMessageBatch(messages), decode: (b) => P.stampMessageBatch(b, { partitionId: 1, baseOffset: 1n, baseTimestamp: 1n }) },
  { name: 'sliceMessageBatch', sample: stamped, decode: (b) => P.sliceMessageBatch(b, 0, 1) },
  { name: 'decodeUserHeaders', sample: () => P.encodeUserHeaders(headers), decode: P.decodeUserHeaders },
  { name: 'decodeClusterMetadata', sample: () => P.encodeClusterMetadata({ name: 'c', nodes: [{ name: 'n', ip: '10.0.0.1', endpoints: { tcp: 1, quic: 2, http: 3, websocket: 4 }, role: 'Leader', status: 'Healthy' }] }), decode: P.decodeClusterMetadata },
  { name: 'decodeClientList', sample: () => P.encodeClientList([{ clientId: 1, userId: P.NO_USER_ID, transport: 1, address: 'a:1', consumerGroupsCount: 2 }]), decode: P.decodeClientList },
  { name: 'decodeClientDetails', sample: () => P.encodeClientDetails({ clientId: 1, userId: 0, transport: 1, address: 'a', consumerGroups: [{ streamId: 0, topicId: 0, groupId: 0 }] }), decode: P.decodeClientDetails },
  { name: 'decodeConsumerGroupDetails', sample: () => P.encodeConsumerGroupDetails({ id: 1, partitionsCount: 1, membersCount: 1, name: 'g', members: [{ id: 0, partitions: [0, 1] }] }), decode: P.decodeConsumerGroupDetails },
  { name: 'decodeResultSection', sample: () => P.encodeResultSection([{ index: 0, code: 1 }], new Uint8Array(2)), decode: P.decodeResultSection },
  { name: 'decodeSendMessagesResponse', sample: () => P.encodeSendMessagesResponse([{ streamId: 1, topicId: 1, partitionId: 1, baseOffset: 1n }]), decode: P.decodeSendMessagesResponse },
  { name: 'decodeVsrServerFrame', sample: () => P.encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 128 }, P.encodeResultSection([], new Uint8Array(4))), decode: P.unwrapVsrReply },
  { name: 'VsrFrameSplitter', sample: () => P.encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 }, new Uint8Array(5)), decode: (b) => new P.VsrFrameSplitter({ maxFrameSize: 4096 }).push(b) },
];
for (const protocol of ['vsr', 'classic'] as const) {
  decoders.push(
    {
      name: `decodePollMessagesResponse ${protocol}`,
      sample: () =>
        protocol === 'vsr'
          ? P.encodePollResponseVsr(1, 11n, [stamped(), stamped()])
          : P.encodePollResponseClassic(1, 1n, [{ id: 1n, offset: 0n, timestamp: 1n, originTimestamp: 1n, payload: utf8('a'), rawHeaders: P.encodeUserHeaders(headers) }]),
      decode: (b) => P.decodePollMessagesResponse(b, protocol, { verifyChecksums: true }),
    },
    { name: `decodeTopicDetails ${protocol}`, sample: () => P.encodeTopicDetails(topic(protocol), protocol), decode: (b) => P.decodeTopicDetails(b, protocol) },
    { name: `decodeTopicList ${protocol}`, sample: () => P.encodeTopicList([topic(protocol), topic(protocol)], protocol), decode: (b) => P.decodeTopicList(b, protocol) },
    { name: `decodeStreamDetails ${protocol}`, sample: () => P.encodeStreamDetails({ ...stream(protocol), topics: [topic(protocol)] }, protocol), decode: (b) => P.decodeStreamDetails(b, protocol) },
    { name: `decodeSendMessagesRequest ${protocol}`, sample: () => P.encodeSendMessagesRequest({ stream: 'st', topic: 1, partitioning: partitioning.key('k'), messages }, protocol), decode: (b) => P.decodeSendMessagesRequest(b, protocol, { verifyChecksums: true }) },
  );
}

/** Collection elements (array items, map entries) reachable from a decoded value. */
function elements(value: unknown, seen = new Set<unknown>()): number {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || seen.has(value)) return 0;
  seen.add(value);
  if (Array.isArray(value)) return value.length + value.reduce((n: number, v) => n + elements(v, seen), 0);
  if (value instanceof Map) {
    let n = value.size;
    for (const v of value.values()) n += elements(v, seen);
    return n;
  }
  let n = 0;
  for (const v of Object.values(value)) n += elements(v, seen);
  return n;
}

/** Claims a count or length field may be made to hold. */
const CLAIMS = [0n, 1n, 2n, 47n, 48n, 255n, 256n, 0x7fff_ffffn, 0x8000_0000n, 0xffff_fff0n, 0xffff_ffffn, (1n << 53n) + 1n, (1n << 64n) - 1n];

type Mutation =
  | { readonly op: 'truncate'; readonly at: number }
  | { readonly op: 'flip'; readonly at: number; readonly value: number }
  | { readonly op: 'claim'; readonly at: number; readonly width: 1 | 4 | 8; readonly claim: bigint };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant('claim' as const), at: fc.nat(), width: fc.constantFrom(1 as const, 4 as const, 8 as const), claim: fc.oneof(fc.constantFrom(...CLAIMS), fc.bigInt({ min: 0n, max: 600n })) }),
);

/** Applies one mutation; a claim overwrites `width` little-endian bytes (low bits of the claim). */
function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const at = m.at % Math.max(1, bytes.length);
  if (m.op === 'truncate') return bytes.slice(0, at);
  const out = bytes.slice();
  if (m.op === 'flip') out[at] = m.value;
  else for (let i = 0; i < m.width && at + i < out.length; i++) out[at + i] = Number((m.claim >> BigInt(8 * i)) & 0xffn);
  return out;
}

describe('computeBatchChecksum over a malformed batch', () => {
  const header = (count: number): Uint8Array => {
    const batch = new Uint8Array(256);
    new DataView(batch.buffer).setUint32(48, count, true);
    return batch;
  };

  it('refuses a count the bytes cannot hold, before sizing anything by it', () => {
    for (const count of [1, 5, 0x7fff_ffff, 0xffff_ffff]) expect(() => P.computeBatchChecksum(header(count))).toThrow(IggyCodecError);
    expect(() => P.computeBatchChecksum(stamped(), 3)).toThrow(IggyCodecError);
    expect(() => P.computeBatchChecksum(stamped(), 1.5)).toThrow(IggyCodecError);
  });

  it('refuses a frame whose lengths lead past the batch, and a batch shorter than its header', () => {
    const batch = stamped();
    // The first frame's payload length claims most of u32: the second frame header is then past the end.
    new DataView(batch.buffer).setUint32(256 + 36, 0xffff_0000, true);
    expect(() => P.computeBatchChecksum(batch)).toThrow(IggyCodecError);
    expect(() => P.computeBatchChecksum(new Uint8Array(100))).toThrow(IggyCodecError);
  });

  it('still answers the stored checksum of a sound batch', () => {
    const batch = stamped();
    expect(P.computeBatchChecksum(batch)).toBe(new DataView(batch.buffer).getBigUint64(40, true));
    expect(P.computeBatchChecksum(new Uint8Array(256))).toBe(P.computeBatchChecksum(new Uint8Array(256), 0));
  });
});

describe('property: claimed counts and lengths only ever produce typed errors or bounded values', () => {
  it.each(decoders.map((d) => [d.name, d] as const))('%s', (_name, d) => {
    d.decode(d.sample());
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const bytes = mutations.reduce(mutate, d.sample());
        let value: unknown;
        try {
          value = d.decode(bytes);
        } catch (error) {
          if (!IggyProtocolError.is(error)) throw error;
          return;
        }
        expect(elements(value)).toBeLessThanOrEqual(bytes.length);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('a VSR poll reply whose base plus a frame delta passes u64', () => {
  const U64_MAX = (1n << 64n) - 1n;
  const reply = (stamp: P.BatchStamp, origin?: bigint): Uint8Array => {
    const batch = P.encodeMessageBatch(messages.map((m) => (origin === undefined ? m : { ...m, originTimestamp: origin + m.originTimestamp - 5n })));
    return P.encodePollResponseVsr(1, 0n, [P.stampMessageBatch(batch, stamp)]);
  };

  it('is refused typed instead of handing out offsets no Iggy field can hold', () => {
    // Two messages: deltas 0 and 1 on a base of u64::MAX.
    const offsets = reply({ partitionId: 1, baseOffset: U64_MAX, baseTimestamp: 1n });
    expect(() => P.decodePollMessagesResponse(offsets, 'vsr')).toThrow(IggyCodecError);
    // Origins u64::MAX − 1 and u64::MAX: fine; one more microsecond on the second passes u64.
    expect(P.decodePollMessagesResponse(reply({ partitionId: 1, baseOffset: 0n, baseTimestamp: 1n }, U64_MAX - 1n), 'vsr').messages[1]?.originTimestamp).toBe(U64_MAX);
    const late = P.encodeMessageBatch([{ ...messages[0]!, originTimestamp: U64_MAX - 1n }, { ...messages[1]!, originTimestamp: U64_MAX }]);
    const view = new DataView(late.buffer);
    // Second frame's timestamp delta (at frame offset 28) raised from 1 to 2.
    const second = 256 + 48 + view.getUint32(256 + 32, true) + view.getUint32(256 + 36, true);
    view.setUint32(second + 28, 2, true);
    const stampedLate = P.stampMessageBatch(late, { partitionId: 1, baseOffset: 0n, baseTimestamp: 1n });
    expect(() => P.decodePollMessagesResponse(P.encodePollResponseVsr(1, 0n, [stampedLate]), 'vsr')).toThrow(IggyCodecError);
  });

  it('still decodes the largest offsets that fit', () => {
    const polled = P.decodePollMessagesResponse(reply({ partitionId: 1, baseOffset: U64_MAX - 1n, baseTimestamp: 1n }), 'vsr');
    expect(polled.messages.map((m) => m.offset)).toEqual([U64_MAX - 1n, U64_MAX]);
  });
});
