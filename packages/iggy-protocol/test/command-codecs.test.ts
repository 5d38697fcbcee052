// Round trips of every command codec in both protocols, plus the argument checks.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  IggyCodecError,
  IggyIntegrityError,
  IggyInvalidError,
  decodeClientDetails,
  decodeServerStats,
  encodeServerStats,
  commandCodeOfRequest,
  decodeVsrRequestHeader,
  encodeVsrRequestFrame,
  decodeConsumerGroupAssignment,
  decodeConsumerGroupDetails,
  decodeConsumerGroupInfo,
  decodeConsumerGroupList,
  decodeConsumerOffsetInfo,
  decodeCreateStreamRequest,
  decodeCreateTopicRequest,
  decodeDeleteConsumerOffsetRequest,
  decodeGetConsumerOffsetRequest,
  decodeLoginWithTokenRequest,
  decodeMessageBatch,
  decodePartitionsRequest,
  decodePollMessagesResponse,
  decodeSendMessagesRequest,
  decodeSendMessagesResponse,
  decodeStoreConsumerOffsetRequest,
  decodeStreamDetails,
  decodeStreamInfo,
  decodeStreamList,
  decodeTopicDetails,
  decodeTopicList,
  decodeTopicTarget,
  decodeUpdateTopicRequest,
  decodeUserHeaderEntries,
  decodeUserHeaders,
  encodeClientDetails,
  encodeConsumerGroupAssignment,
  encodeConsumerGroupDetails,
  encodeConsumerGroupInfo,
  encodeConsumerGroupList,
  encodeConsumerOffsetInfo,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeDeleteConsumerOffsetRequest,
  encodeEmptyPollResponse,
  encodeGetConsumerOffsetRequest,
  encodeLoginWithTokenRequest,
  encodeMessageBatch,
  encodePartitionsRequest,
  encodePollResponseVsr,
  encodeSendMessagesRequest,
  encodeSendMessagesResponse,
  encodeStoreConsumerOffsetRequest,
  encodeStreamDetails,
  encodeStreamInfo,
  encodeStreamList,
  encodeTopicDetails,
  encodeTopicList,
  encodeTopicTarget,
  encodeUpdateTopicRequest,
  encodeUserHeaders,
  headerValue,
  initChecksums,
  isProtocolVersionAccepted,
  packProtocolVersion,
  partitionForKey,
  partitioning,
  sliceMessageBatch,
  stampMessageBatch,
  unpackProtocolVersion,
} from '@agdx/iggy-protocol';
import type { HeaderValue, IggyProtocol, TopicDetails } from '@agdx/iggy-protocol';
import { text, utf8 } from './helpers.js';

beforeAll(async () => {
  await initChecksums();
});

const PROTOCOLS: IggyProtocol[] = ['vsr', 'classic'];

describe('user headers', () => {
  const all = new Map<string, HeaderValue>([
    ['raw', headerValue.raw(new Uint8Array([1, 2, 3]))],
    ['string', headerValue.string('héllo')],
    ['bool', headerValue.bool(true)],
    ['int8', headerValue.int8(-1)],
    ['int16', headerValue.int16(-2)],
    ['int32', headerValue.int32(-3)],
    ['int64', headerValue.int64(-4n)],
    ['int128', headerValue.int128(-5n)],
    ['uint8', headerValue.uint8(255)],
    ['uint16', headerValue.uint16(65535)],
    ['uint32', headerValue.uint32(7)],
    ['uint64', headerValue.uint64(2n ** 64n - 1n)],
    ['uint128', headerValue.uint128(2n ** 100n)],
    ['float32', headerValue.float32(1.5)],
    ['float64', headerValue.float64(-2.25)],
  ]);

  it('round-trips every kind with kind codes 1..15', () => {
    const block = encodeUserHeaders(all);
    expect(decodeUserHeaders(block)).toEqual(all);
    expect(decodeUserHeaderEntries(block).map((e) => e.valueKind)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(headerValue.int128(-5n).value[15]).toBe(0xff);
  });

  it('rejects values that do not fit their kind', () => {
    expect(() => encodeUserHeaders(new Map([['k', { kind: 'uint32', value: new Uint8Array(3) }]]))).toThrow(IggyInvalidError);
    expect(() => encodeUserHeaders(new Map([['k', { kind: 'bool', value: new Uint8Array([2]) }]]))).toThrow(IggyInvalidError);
    expect(() => encodeUserHeaders(new Map([['', headerValue.bool(true)]]))).toThrow(IggyInvalidError);
    expect(() => encodeUserHeaders(new Map([['k', headerValue.raw(new Uint8Array(256))]]))).toThrow(IggyInvalidError);
  });

  it('keeps unknown kinds in the raw entries but refuses them in the typed map', () => {
    const block = new Uint8Array([2, 1, 0, 0, 0, 0x6b, 99, 1, 0, 0, 0, 5]);
    expect(decodeUserHeaderEntries(block)[0]).toMatchObject({ keyKind: 2, valueKind: 99 });
    expect(() => decodeUserHeaders(block)).toThrow(IggyCodecError);
    expect(() => decodeUserHeaderEntries(new Uint8Array([0, 1, 0, 0, 0, 0x6b]))).toThrow(IggyCodecError);
    expect(() => decodeUserHeaderEntries(new Uint8Array([2, 1, 0, 0, 0, 0x6b]))).toThrow(IggyCodecError);
  });
});

describe('versions and partition keys', () => {
  it('packs 0.11.0 to 11264 and applies the gate', () => {
    expect(packProtocolVersion(0, 11, 0)).toBe(11264);
    expect(unpackProtocolVersion(11265)).toEqual({ major: 0, minor: 11, patch: 1 });
    expect(isProtocolVersionAccepted(11264, 11265)).toBe(true);
    expect(isProtocolVersionAccepted(packProtocolVersion(0, 12, 0), 11264)).toBe(false);
    expect(isProtocolVersionAccepted(packProtocolVersion(0, 10, 9), 11264)).toBe(false);
  });
  it('maps a key to XXH32 mod partitions', () => {
    expect(partitionForKey(utf8('order-key'), 3)).toBe(0x43a01006 % 3);
    expect(() => partitionForKey(utf8('x'), 0)).toThrow(IggyInvalidError);
  });
});

describe.each(PROTOCOLS)('streams and topics [%s]', (protocol) => {
  const options = protocol === 'vsr' ? { options: new Map([['x', headerValue.bool(true)]]) } : {};
  const topic: TopicDetails = {
    id: 2,
    createdAt: 10n,
    partitionsCount: 2,
    messageExpiry: 5n,
    compression: 2,
    maxTopicSize: 0n,
    sizeBytes: 100n,
    messagesCount: 4n,
    name: 'orders',
    ...(protocol === 'classic' ? { replicationFactor: 1 } : { options: new Map([['message_expiry', headerValue.uint64(5n)]]), derivedOptions: new Map() }),
    partitions: [
      { id: 0, createdAt: 10n, segmentsCount: 1, currentOffset: 3n, sizeBytes: 60n, messagesCount: 3n },
      { id: 1, createdAt: 10n, segmentsCount: 1, currentOffset: 0n, sizeBytes: 40n, messagesCount: 1n },
    ],
  };
  const { partitions: _p, ...topicInfo } = topic;
  const stream = { id: 1, createdAt: 9n, topicsCount: 1, sizeBytes: 100n, messagesCount: 4n, name: 'agents', ...(protocol === 'vsr' ? { options: new Map() } : {}) };

  it('CreateStream', () => {
    expect(decodeCreateStreamRequest(encodeCreateStreamRequest({ name: 's', ...options }, protocol), protocol)).toEqual({ name: 's', ...(protocol === 'vsr' ? options : {}) });
  });
  it('StreamInfo, StreamDetails and the stream list', () => {
    expect(decodeStreamInfo(encodeStreamInfo(stream, protocol), protocol)).toEqual(stream);
    expect(decodeStreamDetails(encodeStreamDetails({ ...stream, topics: [topicInfo] }, protocol), protocol)).toEqual({ ...stream, topics: [topicInfo] });
    expect(decodeStreamDetails(encodeStreamDetails(undefined, protocol), protocol)).toBeUndefined();
    expect(decodeStreamList(encodeStreamList([stream, { ...stream, id: 2 }], protocol), protocol)).toHaveLength(2);
  });
  it('names keep a leading U+FEFF (stream and topic details, a create-stream request)', () => {
    const marked = { ...stream, name: '\ufeffagents' };
    expect(decodeStreamInfo(encodeStreamInfo(marked, protocol), protocol)).toEqual(marked);
    const markedTopic = { ...topic, name: '\ufefforders' };
    expect(decodeTopicDetails(encodeTopicDetails(markedTopic, protocol), protocol)).toEqual(markedTopic);
    expect(decodeCreateStreamRequest(encodeCreateStreamRequest({ name: '\ufeff', ...options }, protocol), protocol)).toEqual({ name: '\ufeff', ...(protocol === 'vsr' ? options : {}) });
    expect(decodeCreateStreamRequest(encodeCreateStreamRequest({ name: 'a\ufeffb', ...options }, protocol), protocol)).toMatchObject({ name: 'a\ufeffb' });
  });
  it('TopicDetails and the topic list', () => {
    expect(decodeTopicDetails(encodeTopicDetails(topic, protocol), protocol)).toEqual(topic);
    expect(decodeTopicDetails(new Uint8Array(0), protocol)).toBeUndefined();
    expect(decodeTopicList(encodeTopicList([topicInfo, topicInfo], protocol), protocol)).toEqual([topicInfo, topicInfo]);
  });
  it('CreateTopic and UpdateTopic carry every setting', () => {
    const req = { stream: 'agents', partitionsCount: 4, name: 't', compression: 2, messageExpiry: 2n ** 64n - 1n, maxTopicSize: 1024n };
    const decoded = decodeCreateTopicRequest(encodeCreateTopicRequest(req, protocol), protocol);
    expect(decoded).toMatchObject(req);
    const upd = { stream: 1, topic: 'orders', name: 'orders2', compression: 1, messageExpiry: 7n, maxTopicSize: 9n };
    expect(decodeUpdateTopicRequest(encodeUpdateTopicRequest(upd, protocol), protocol)).toMatchObject(upd);
  });
  it('partitions requests', () => {
    const req = { stream: 1, topic: 'x', partitionsCount: 3 };
    expect(decodePartitionsRequest(encodePartitionsRequest(req))).toEqual(req);
    expect(decodeTopicTarget(encodeTopicTarget({ stream: 'a', topic: 0 }))).toEqual({ stream: 'a', topic: 0 });
  });
});

describe('VSR topic options', () => {
  it('leaves non-canonical options in place and refuses duplicates and bad compression', () => {
    const req = { stream: 0, partitionsCount: 1, name: 't', options: new Map([['segment_size', headerValue.uint64(1048576n)], ['message_expiry', headerValue.string('1h')]]) };
    expect(decodeCreateTopicRequest(encodeCreateTopicRequest(req, 'vsr'), 'vsr')).toEqual(req);
    expect(() => encodeCreateTopicRequest({ ...req, messageExpiry: 1n }, 'vsr')).toThrow(IggyInvalidError);
    expect(() => encodeCreateTopicRequest({ stream: 0, partitionsCount: 1, name: 't', compression: 0 }, 'vsr')).toThrow(IggyInvalidError);
  });
  it('a text option with a leading U+FEFF is not the canonical value it would be without the mark', () => {
    const req = { stream: 0, partitionsCount: 1, name: 't', options: new Map([['compression_algorithm', headerValue.string('\ufeffgzip')]]) };
    expect(decodeCreateTopicRequest(encodeCreateTopicRequest(req, 'vsr'), 'vsr')).toEqual(req);
    const plain = { ...req, options: new Map([['compression_algorithm', headerValue.string('gzip')]]) };
    expect(decodeCreateTopicRequest(encodeCreateTopicRequest(plain, 'vsr'), 'vsr')).toMatchObject({ compression: 2 });
  });
});

describe.each(PROTOCOLS)('offsets [%s]', (protocol) => {
  it('store, get and delete round-trip', () => {
    const store = { consumer: { kind: 'group', id: 'g' }, stream: 1, topic: 2, partitionId: 0, offset: 10n, ...(protocol === 'vsr' ? { ack: 'quorum' as const } : {}) } as const;
    expect(decodeStoreConsumerOffsetRequest(encodeStoreConsumerOffsetRequest(store, protocol), protocol)).toEqual(store);
    const get = { consumer: { kind: 'consumer', id: 5 }, stream: 1, topic: 2 } as const;
    expect(decodeGetConsumerOffsetRequest(encodeGetConsumerOffsetRequest(get))).toEqual(get);
    const del = { ...get, partitionId: 1, ...(protocol === 'vsr' ? { ack: 'none' as const } : {}) } as const;
    expect(decodeDeleteConsumerOffsetRequest(encodeDeleteConsumerOffsetRequest(del, protocol), protocol)).toEqual(del);
    const info = { partitionId: 1, currentOffset: 9n, storedOffset: 4n };
    expect(decodeConsumerOffsetInfo(encodeConsumerOffsetInfo(info))).toEqual(info);
    expect(decodeConsumerOffsetInfo(encodeConsumerOffsetInfo(undefined))).toBeUndefined();
  });
});

describe('consumer groups, login, client details', () => {
  it('round-trip', () => {
    const info = { id: 0, partitionsCount: 3, membersCount: 2, name: 'workers' };
    expect(decodeConsumerGroupInfo(encodeConsumerGroupInfo(info))).toEqual(info);
    const details = { ...info, members: [{ id: 0, partitions: [0, 2] }, { id: 1, partitions: [1] }] };
    expect(decodeConsumerGroupDetails(encodeConsumerGroupDetails(details))).toEqual(details);
    expect(decodeConsumerGroupDetails(new Uint8Array(0))).toBeUndefined();
    expect(decodeConsumerGroupList(encodeConsumerGroupList([info, { ...info, id: 1 }]))).toHaveLength(2);
    const a = { generation: 4n, partitions: [2, 0] };
    expect(decodeConsumerGroupAssignment(encodeConsumerGroupAssignment(a))).toEqual(a);
    expect(decodeLoginWithTokenRequest(encodeLoginWithTokenRequest('pat'))).toEqual({ token: 'pat' });
    const me = { clientId: 3, userId: 0, transport: 1, address: '127.0.0.1:5000', consumerGroups: [{ streamId: 0, topicId: 1, groupId: 2 }] };
    expect(decodeClientDetails(encodeClientDetails(me))).toEqual(me);
  });
});

describe.each(PROTOCOLS)('messages [%s]', (protocol) => {
  const headers = new Map([['agdx.kind', headerValue.string('task')], ['n', headerValue.uint64(3n)]]);
  const messages = [
    { id: 11n, payload: utf8('a'), headers, originTimestamp: 100n },
    { id: 12n, payload: new Uint8Array(0), originTimestamp: 150n },
    { id: 13n, payload: utf8('ccc'), originTimestamp: 120n },
  ];
  for (const p of [partitioning.balanced(), partitioning.partitionId(4), partitioning.key('user-1')]) {
    it(`send round-trips with ${p.kind} partitioning`, () => {
      const body = encodeSendMessagesRequest({ stream: 'agents', topic: 7, partitioning: p, messages }, protocol);
      const d = decodeSendMessagesRequest(body, protocol, { verifyChecksums: true });
      expect(d.partitioning).toEqual(p);
      expect(d.messages.map((m) => [m.id, m.originTimestamp, text(m.payload)])).toEqual([[11n, 100n, 'a'], [12n, 150n, ''], [13n, 120n, 'ccc']]);
      expect(decodeUserHeaders(d.messages[0]!.rawHeaders)).toEqual(headers);
    });
  }

  it('fills absent ids and timestamps', () => {
    const body = encodeSendMessagesRequest({ stream: 1, topic: 1, partitioning: partitioning.balanced(), messages: [{ payload: utf8('x') }] }, protocol, { nowMicros: () => 42n, newId: () => 99n });
    const m = decodeSendMessagesRequest(body, protocol).messages[0]!;
    expect(m.originTimestamp).toBe(42n);
    expect(m.id).toBe(protocol === 'vsr' ? 99n : 0n);
  });

  it('refuses empty batches and both header forms', () => {
    expect(() => encodeSendMessagesRequest({ stream: 1, topic: 1, partitioning: partitioning.balanced(), messages: [] }, protocol)).toThrow(IggyInvalidError);
    expect(() => encodeSendMessagesRequest({ stream: 1, topic: 1, partitioning: partitioning.balanced(), messages: [{ payload: utf8('x'), headers, rawHeaders: new Uint8Array(1) }] }, protocol)).toThrow(IggyInvalidError);
  });
});

describe('VSR batch specifics', () => {
  it('random ids are non-zero UUID v4 values', () => {
    const batch = decodeMessageBatch(encodeMessageBatch([{ payload: utf8('x'), originTimestamp: 1n }]));
    const id = batch.frames[0]!.id;
    expect(id).not.toBe(0n);
    expect((id >> 76n) & 0xfn).toBe(4n);
  });

  it('refuses a timestamp spread beyond u32', () => {
    expect(() => encodeMessageBatch([{ payload: utf8('x'), originTimestamp: 0n }, { payload: utf8('y'), originTimestamp: 2n ** 32n }])).toThrow(IggyInvalidError);
  });

  it('detects corrupted frames and batches', () => {
    const batch = encodeMessageBatch([{ id: 1n, payload: utf8('hello'), originTimestamp: 1n }]);
    const frameCorrupt = batch.slice();
    frameCorrupt[batch.length - 1]! ^= 1;
    expect(() => decodeMessageBatch(frameCorrupt, 0, { verifyChecksums: true })).toThrow(IggyIntegrityError);
    const batchCorrupt = batch.slice();
    batchCorrupt[40]! ^= 1;
    expect(() => decodeMessageBatch(batchCorrupt, 0, { verifyChecksums: true })).toThrow(expect.objectContaining({ context: { iggyCode: 4039 } }));
    const reserved = batch.slice();
    reserved[100] = 1;
    expect(() => decodeMessageBatch(reserved)).toThrow(IggyCodecError);
  });

  it('checksums: false leaves zeros (for measurement)', () => {
    const batch = encodeMessageBatch([{ id: 1n, payload: utf8('hello'), originTimestamp: 1n }], { checksums: false });
    expect(decodeMessageBatch(batch).header.batchChecksum).toBe(0n);
  });

  it('poll replies walk several records and keep server-sliced deltas', () => {
    const a = stampMessageBatch(encodeMessageBatch([{ id: 1n, payload: utf8('a'), originTimestamp: 10n }, { id: 2n, payload: utf8('b'), originTimestamp: 11n }]), { partitionId: 0, baseOffset: 0n, baseTimestamp: 50n });
    const b = stampMessageBatch(encodeMessageBatch([{ id: 3n, payload: utf8('c'), originTimestamp: 20n }]), { partitionId: 0, baseOffset: 2n, baseTimestamp: 60n });
    const p = decodePollMessagesResponse(encodePollResponseVsr(0, 2n, [a, b]), 'vsr', { verifyChecksums: true });
    expect(p.messages.map((m) => [m.offset, m.timestamp, m.originTimestamp])).toEqual([[0n, 50n, 10n], [1n, 50n, 11n], [2n, 60n, 20n]]);
    expect(decodePollMessagesResponse(encodeEmptyPollResponse(0xffffffff, 0n), 'vsr')).toEqual({ partitionId: 0xffffffff, currentOffset: 0n, messages: [] });
    const lying = encodePollResponseVsr(0, 2n, [a]);
    lying[12] = 5;
    expect(() => decodePollMessagesResponse(lying, 'vsr')).toThrow(IggyCodecError);
  });

  it('slices a stored batch the way a server serves a partial record', () => {
    const stored = stampMessageBatch(
      encodeMessageBatch([0, 1, 2, 3].map((i) => ({ id: BigInt(i + 1), payload: utf8(`m${i}`), originTimestamp: 100n + BigInt(i) }))),
      { partitionId: 0, baseOffset: 40n, baseTimestamp: 7n },
    );
    const slice = sliceMessageBatch(stored, 1, 2);
    const p = decodePollMessagesResponse(encodePollResponseVsr(0, 43n, [slice]), 'vsr', { verifyChecksums: true });
    expect(p.messages.map((m) => [m.offset, m.originTimestamp, text(m.payload)])).toEqual([[41n, 101n, 'm1'], [42n, 102n, 'm2']]);
    expect(() => sliceMessageBatch(stored, 3, 2)).toThrow(IggyInvalidError);
  });

  it('send confirmations round-trip', () => {
    const c = [{ streamId: 1, topicId: 2, partitionId: 3, baseOffset: 4n }];
    expect(decodeSendMessagesResponse(encodeSendMessagesResponse(c))).toEqual(c);
  });
});

const SAMPLE_STATS = {
  processId: 1, cpuUsage: 0.5, totalCpuUsage: 1.5, memoryUsage: 2n, totalMemory: 3n, availableMemory: 4n, runTime: 5n, startTime: 6n,
  readBytes: 7n, writtenBytes: 8n, messagesSizeBytes: 9n, streamsCount: 10, topicsCount: 11, partitionsCount: 12, segmentsCount: 13,
  messagesCount: 14n, clientsCount: 15, consumerGroupsCount: 16, hostname: 'h', osName: 'linux', osVersion: '6', kernelVersion: 'k',
  serverVersion: '0.9.0', serverSemver: 9000, cacheMetrics: [{ streamId: 1, topicId: 2, partitionId: 3, hits: 4n, misses: 5n, hitRatio: 0.25 }],
  threadsCount: 8, freeDiskSpace: 100n, totalDiskSpace: 200n,
};

describe('GetStats and request codes', () => {
  it('GetStats round-trips', () => {
    expect(decodeServerStats(encodeServerStats(SAMPLE_STATS))).toEqual(SAMPLE_STATS);
  });
  it('maps a VSR request header back to its command code', () => {
    const h = (operation: number, code = 0) => decodeVsrRequestHeader(encodeVsrRequestFrame({ client: 1n, request: 1n, session: 1n, operation, code }));
    expect(commandCodeOfRequest(h(2, 100))).toBe(100);
    expect(commandCodeOfRequest(h(1))).toBe(40);
    expect(commandCodeOfRequest(h(3))).toBe(39);
    expect(commandCodeOfRequest(h(160))).toBe(101);
    expect(commandCodeOfRequest(h(64))).toBeUndefined();
  });
});
