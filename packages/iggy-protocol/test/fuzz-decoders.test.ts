// Hostile input: every decoder, fed random bytes and mutations of valid samples, either returns
// or throws one of the package's typed errors, never a RangeError/TypeError.
import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import * as P from '@agdx/iggy-protocol';
import { IggyProtocolError, headerValue, partitioning } from '@agdx/iggy-protocol';
import { utf8 } from './helpers.js';

beforeAll(async () => {
  await P.initChecksums();
});

const SEED = Number(process.env.FUZZ_SEED ?? 20261130);
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

type Decoder = { readonly name: string; readonly sample: () => Uint8Array; readonly decode: (b: Uint8Array) => unknown };

const headers = new Map([['k', headerValue.uint32(7)], ['s', headerValue.string('v')]]);
const messages = [{ id: 1n, payload: utf8('hello'), headers, originTimestamp: 5n }, { id: 2n, payload: utf8('x'), originTimestamp: 6n }];
const send = (protocol: P.IggyProtocol) => P.encodeSendMessagesRequest({ stream: 'st', topic: 1, partitioning: partitioning.key('k'), messages }, protocol);
const stamped = () => P.stampMessageBatch(P.encodeMessageBatch(messages), { partitionId: 1, baseOffset: 10n, baseTimestamp: 20n });
const topic = (protocol: P.IggyProtocol): P.TopicDetails => ({
  id: 1, createdAt: 1n, partitionsCount: 1, messageExpiry: 0n, compression: 1, maxTopicSize: 0n, sizeBytes: 0n, messagesCount: 0n, name: 't',
  ...(protocol === 'vsr' ? { options: new Map([['segment_size', headerValue.uint64(512n)]]), derivedOptions: new Map() } : { replicationFactor: 1 }),
  partitions: [{ id: 0, createdAt: 1n, segmentsCount: 1, currentOffset: 0n, sizeBytes: 0n, messagesCount: 0n }],
});
const stream = (protocol: P.IggyProtocol): P.StreamInfo => ({ id: 1, createdAt: 1n, topicsCount: 0, sizeBytes: 0n, messagesCount: 0n, name: 's', ...(protocol === 'vsr' ? { options: new Map() } : {}) });
const consumer = { kind: 'group', id: 'g' } as const;
const regReply = () => P.encodeVsrReplyFrame({ client: 1n, request: 0n, operation: 1 }, P.encodeResultSection([], P.encodeRegisterReply({ userId: 0, session: 3n, serverProtocolVersion: 11264, serverVersion: 'x' })));

const decoders: Decoder[] = [
  { name: 'decodeVsrRequestFrame', sample: () => P.encodeVsrRequestFrame({ client: 1n, request: 1n, operation: 2, code: 1 }, new Uint8Array(3)), decode: P.decodeVsrRequestFrame },
  { name: 'decodeVsrReplyHeader', sample: () => P.encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 }), decode: P.decodeVsrReplyHeader },
  { name: 'decodeVsrEvictionHeader', sample: () => P.encodeVsrEvictionFrame({ client: 1n, reason: 9 }), decode: P.decodeVsrEvictionHeader },
  { name: 'unwrapVsrReply', sample: () => P.encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 128 }, P.encodeResultSection([], new Uint8Array(4))), decode: P.unwrapVsrReply },
  { name: 'decodeResultSection', sample: () => P.encodeResultSection([{ index: 0, code: 1 }], new Uint8Array(2)), decode: P.decodeResultSection },
  { name: 'decodeClassicRequest', sample: () => P.encodeClassicRequest(1, new Uint8Array(2)), decode: P.decodeClassicRequest },
  { name: 'unwrapClassicResponse', sample: () => P.encodeClassicResponse(0, new Uint8Array(2)), decode: P.unwrapClassicResponse },
  { name: 'VsrFrameSplitter', sample: () => P.encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 }, new Uint8Array(5)), decode: (b) => new P.VsrFrameSplitter({ maxFrameSize: 4096 }).push(b) },
  { name: 'ClassicRequestSplitter', sample: () => P.encodeClassicRequest(1, new Uint8Array(2)), decode: (b) => new P.ClassicRequestSplitter({ maxFrameSize: 4096 }).push(b) },
  { name: 'ClassicResponseSplitter', sample: () => P.encodeClassicResponse(0, new Uint8Array(2)), decode: (b) => new P.ClassicResponseSplitter({ maxFrameSize: 4096 }).push(b) },
  { name: 'detectProtocolGeneration', sample: () => P.encodeClassicRequest(38, new Uint8Array(10)), decode: P.detectProtocolGeneration },
  { name: 'decodeUserHeaders', sample: () => P.encodeUserHeaders(headers), decode: P.decodeUserHeaders },
  { name: 'decodeOptions', sample: () => P.encodeOptions(headers), decode: P.decodeOptions },
  { name: 'decodeLoginUserRequest', sample: () => P.encodeLoginUserRequest({ username: 'iggy', password: 'iggy', version: 'v' }), decode: P.decodeLoginUserRequest },
  { name: 'decodeLoginWithTokenRequest', sample: () => P.encodeLoginWithTokenRequest('tok'), decode: P.decodeLoginWithTokenRequest },
  { name: 'decodeIdentityResponse', sample: () => P.encodeIdentityResponse(3), decode: P.decodeIdentityResponse },
  { name: 'decodeRegisterRequest', sample: () => P.encodeRegisterRequest({ versionInfo: { protocolVersion: 11264, sdkName: 'a', sdkVersion: 'b' }, credentials: { username: 'iggy', password: 'iggy' } }), decode: P.decodeRegisterRequest },
  { name: 'decodeRegisterReply', sample: () => P.encodeRegisterReply({ userId: 1, session: 2n, serverProtocolVersion: 3, serverVersion: 'v' }), decode: P.decodeRegisterReply },
  { name: 'decodeClientDetails', sample: () => P.encodeClientDetails({ clientId: 1, userId: 0, transport: 1, address: 'a', consumerGroups: [{ streamId: 0, topicId: 0, groupId: 0 }] }), decode: P.decodeClientDetails },
  { name: 'decodeServerStats', sample: () => P.encodeServerStats({ processId: 1, cpuUsage: 0, totalCpuUsage: 0, memoryUsage: 0n, totalMemory: 0n, availableMemory: 0n, runTime: 0n, startTime: 0n, readBytes: 0n, writtenBytes: 0n, messagesSizeBytes: 0n, streamsCount: 0, topicsCount: 0, partitionsCount: 0, segmentsCount: 0, messagesCount: 0n, clientsCount: 0, consumerGroupsCount: 0, hostname: 'h', osName: 'o', osVersion: 'v', kernelVersion: 'k', serverVersion: 's', serverSemver: 0, cacheMetrics: [{ streamId: 0, topicId: 0, partitionId: 0, hits: 0n, misses: 0n, hitRatio: 0 }], threadsCount: 0, freeDiskSpace: 0n, totalDiskSpace: 0n }), decode: P.decodeServerStats },
  { name: 'decodeStreamTarget', sample: () => P.encodeStreamTarget({ stream: 'abc' }), decode: P.decodeStreamTarget },
  { name: 'decodeTopicTarget', sample: () => P.encodeTopicTarget({ stream: 'abc', topic: 1 }), decode: P.decodeTopicTarget },
  { name: 'decodeGroupTarget', sample: () => P.encodeGroupTarget({ stream: 'abc', topic: 1, group: 'g' }), decode: P.decodeGroupTarget },
  { name: 'decodePartitionsRequest', sample: () => P.encodePartitionsRequest({ stream: 1, topic: 1, partitionsCount: 2 }), decode: P.decodePartitionsRequest },
  { name: 'decodeCreateConsumerGroupRequest', sample: () => P.encodeCreateConsumerGroupRequest({ stream: 1, topic: 1, name: 'g' }), decode: P.decodeCreateConsumerGroupRequest },
  { name: 'decodeConsumerGroupInfo', sample: () => P.encodeConsumerGroupInfo({ id: 1, partitionsCount: 1, membersCount: 1, name: 'g' }), decode: P.decodeConsumerGroupInfo },
  { name: 'decodeConsumerGroupDetails', sample: () => P.encodeConsumerGroupDetails({ id: 1, partitionsCount: 1, membersCount: 1, name: 'g', members: [{ id: 0, partitions: [0, 1] }] }), decode: P.decodeConsumerGroupDetails },
  { name: 'decodeConsumerGroupList', sample: () => P.encodeConsumerGroupList([{ id: 1, partitionsCount: 1, membersCount: 1, name: 'g' }]), decode: P.decodeConsumerGroupList },
  { name: 'decodeConsumerGroupAssignment', sample: () => P.encodeConsumerGroupAssignment({ generation: 1n, partitions: [0, 1] }), decode: P.decodeConsumerGroupAssignment },
  { name: 'decodeGetConsumerOffsetRequest', sample: () => P.encodeGetConsumerOffsetRequest({ consumer, stream: 1, topic: 1, partitionId: 0 }), decode: P.decodeGetConsumerOffsetRequest },
  { name: 'decodeConsumerOffsetInfo', sample: () => P.encodeConsumerOffsetInfo({ partitionId: 0, currentOffset: 1n, storedOffset: 1n }), decode: P.decodeConsumerOffsetInfo },
  { name: 'decodePollMessagesRequest', sample: () => P.encodePollMessagesRequest({ consumer, stream: 1, topic: 1, partitionId: 0, strategy: { kind: 'offset', value: 3n }, count: 10, autoCommit: true }), decode: P.decodePollMessagesRequest },
  { name: 'decodeSendMessagesResponse', sample: () => P.encodeSendMessagesResponse([{ streamId: 1, topicId: 1, partitionId: 1, baseOffset: 1n }]), decode: P.decodeSendMessagesResponse },
  { name: 'decodeMessageBatch', sample: () => P.encodeMessageBatch(messages), decode: (b) => P.decodeMessageBatch(b, 0, { verifyChecksums: true }) },
  { name: 'stampMessageBatch', sample: () => P.encodeMessageBatch(messages), decode: (b) => P.stampMessageBatch(b, { partitionId: 1, baseOffset: 1n, baseTimestamp: 1n }) },
  { name: 'VsrClientSession.handleFrame', sample: regReply, decode: (b) => {
    const s = new P.VsrClientSession({ clientId: 1n });
    s.register({ username: 'iggy', password: 'iggy' });
    return s.handleFrame(b);
  } },
  { name: 'sliceMessageBatch', sample: stamped, decode: (b) => P.sliceMessageBatch(b, 1, 1) },
  { name: 'VsrServerSession.admit', sample: () => P.encodeVsrRequestFrame({ client: 1n, request: 1n, session: 1n, operation: 128 }), decode: (b) => {
    const s = new P.VsrServerSession();
    const { header, body } = P.decodeVsrRequestFrame(b);
    const a = s.admit(header, body);
    return a.action === 'execute' ? s.reply(header, { payload: new Uint8Array(1) }) : a;
  } },
  { name: 'ClassicClientSession.handleFrame', sample: () => P.encodeClassicResponse(0, P.encodeIdentityResponse(0)), decode: (b) => {
    const s = new P.ClassicClientSession();
    s.login({ username: 'iggy', password: 'iggy' });
    return s.handleFrame(b);
  } },
];

for (const protocol of ['vsr', 'classic'] as const) {
  decoders.push(
    { name: `decodeCreateStreamRequest ${protocol}`, sample: () => P.encodeCreateStreamRequest({ name: 's' }, protocol), decode: (b) => P.decodeCreateStreamRequest(b, protocol) },
    { name: `decodeUpdateStreamRequest ${protocol}`, sample: () => P.encodeUpdateStreamRequest({ stream: 1, name: 's' }, protocol), decode: (b) => P.decodeUpdateStreamRequest(b, protocol) },
    { name: `decodeStreamInfo ${protocol}`, sample: () => P.encodeStreamInfo(stream(protocol), protocol), decode: (b) => P.decodeStreamInfo(b, protocol) },
    { name: `decodeStreamDetails ${protocol}`, sample: () => P.encodeStreamDetails({ ...stream(protocol), topics: [topic(protocol)] }, protocol), decode: (b) => P.decodeStreamDetails(b, protocol) },
    { name: `decodeStreamList ${protocol}`, sample: () => P.encodeStreamList([stream(protocol)], protocol), decode: (b) => P.decodeStreamList(b, protocol) },
    { name: `decodeCreateTopicRequest ${protocol}`, sample: () => P.encodeCreateTopicRequest({ stream: 1, partitionsCount: 1, name: 't', messageExpiry: 5n, compression: 2 }, protocol), decode: (b) => P.decodeCreateTopicRequest(b, protocol) },
    { name: `decodeUpdateTopicRequest ${protocol}`, sample: () => P.encodeUpdateTopicRequest({ stream: 1, topic: 1, name: 't', maxTopicSize: 5n }, protocol), decode: (b) => P.decodeUpdateTopicRequest(b, protocol) },
    { name: `decodeTopicDetails ${protocol}`, sample: () => P.encodeTopicDetails(topic(protocol), protocol), decode: (b) => P.decodeTopicDetails(b, protocol) },
    { name: `decodeTopicList ${protocol}`, sample: () => P.encodeTopicList([topic(protocol)], protocol), decode: (b) => P.decodeTopicList(b, protocol) },
    { name: `decodeStoreConsumerOffsetRequest ${protocol}`, sample: () => P.encodeStoreConsumerOffsetRequest({ consumer, stream: 1, topic: 1, partitionId: 0, offset: 1n }, protocol), decode: (b) => P.decodeStoreConsumerOffsetRequest(b, protocol) },
    { name: `decodeDeleteConsumerOffsetRequest ${protocol}`, sample: () => P.encodeDeleteConsumerOffsetRequest({ consumer, stream: 1, topic: 1, partitionId: 0 }, protocol), decode: (b) => P.decodeDeleteConsumerOffsetRequest(b, protocol) },
    { name: `decodeSendMessagesRequest ${protocol}`, sample: () => send(protocol), decode: (b) => P.decodeSendMessagesRequest(b, protocol, { verifyChecksums: true }) },
    {
      name: `decodePollMessagesResponse ${protocol}`,
      sample: () =>
        protocol === 'vsr'
          ? P.encodePollResponseVsr(1, 11n, [stamped()])
          : P.encodePollResponseClassic(1, 1n, [{ id: 1n, offset: 0n, timestamp: 1n, originTimestamp: 1n, payload: utf8('a'), rawHeaders: P.encodeUserHeaders(headers) }]),
      decode: (b) => P.decodePollMessagesResponse(b, protocol, { verifyChecksums: true }),
    },
  );
}

// Users, permissions and personal access tokens.
const perms: P.Permissions = {
  global: P.globalPermissions(true),
  streams: [{ streamId: 1, manageStream: true, readStream: true, manageTopics: false, readTopics: true, pollMessages: true, sendMessages: false, topics: [{ topicId: 2, manageTopic: true, readTopic: true, pollMessages: false, sendMessages: true }] }],
};
decoders.push(
  { name: 'decodeUserTarget', sample: () => P.encodeUserTarget({ user: 'ann' }), decode: P.decodeUserTarget },
  { name: 'decodeUpdatePermissionsRequest', sample: () => P.encodeUpdatePermissionsRequest({ user: 1, permissions: perms }), decode: P.decodeUpdatePermissionsRequest },
  { name: 'decodeChangePasswordRequest', sample: () => P.encodeChangePasswordRequest({ user: 1, currentPassword: 'a', newPassword: 'b' }), decode: P.decodeChangePasswordRequest },
  { name: 'decodeCreateTokenRequest', sample: () => P.encodeCreateTokenRequest({ name: 't', expiry: 5n }), decode: P.decodeCreateTokenRequest },
  { name: 'decodeDeleteTokenRequest', sample: () => P.encodeDeleteTokenRequest({ name: 't' }), decode: P.decodeDeleteTokenRequest },
  { name: 'decodeRawTokenReply', sample: () => P.encodeRawTokenReply('tok'), decode: P.decodeRawTokenReply },
  { name: 'decodeTokenList', sample: () => P.encodeTokenList([{ name: 't', expiresAt: 3n }]), decode: P.decodeTokenList },
);
for (const protocol of ['vsr', 'classic'] as const) {
  const user = { id: 1, createdAt: 1n, status: 1, username: 'ann', permissions: perms };
  decoders.push(
    { name: `decodeCreateUserRequest ${protocol}`, sample: () => P.encodeCreateUserRequest({ username: 'ann', password: 'pw', status: 1, permissions: perms }, protocol), decode: (b) => P.decodeCreateUserRequest(b, protocol) },
    { name: `decodeUpdateUserRequest ${protocol}`, sample: () => P.encodeUpdateUserRequest({ user: 1, username: 'bob', status: 2 }, protocol), decode: (b) => P.decodeUpdateUserRequest(b, protocol) },
    { name: `decodeUserDetails ${protocol}`, sample: () => P.encodeUserDetails(user, protocol), decode: (b) => P.decodeUserDetails(b, protocol) },
    { name: `decodeUserList ${protocol}`, sample: () => P.encodeUserList([user], protocol), decode: (b) => P.decodeUserList(b, protocol) },
  );
}

/** Random bytes, or a valid sample truncated, overwritten at a few positions, or extended. */
function hostile(sample: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 600 }),
    fc.nat({ max: sample.length }).map((n) => sample.slice(0, n)),
    fc.array(fc.tuple(fc.nat({ max: Math.max(0, sample.length - 1) }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }).map((edits) => {
      const b = sample.slice();
      for (const [at, v] of edits) if (at < b.length) b[at] = v;
      return b;
    }),
    fc.uint8Array({ minLength: 1, maxLength: 40 }).map((tail) => {
      const b = new Uint8Array(sample.length + tail.length);
      b.set(sample);
      b.set(tail, sample.length);
      return b;
    }),
  );
}

describe('decoders under hostile input', () => {
  it.each(decoders.map((d) => [d.name, d] as const))('%s', (_name, d) => {
    const sample = d.sample();
    d.decode(sample);
    fc.assert(
      fc.property(hostile(sample), (bytes) => {
        try {
          d.decode(bytes);
        } catch (e) {
          if (!IggyProtocolError.is(e)) throw e;
          // Contexts stay loggable as JSON (no bigint values).
          JSON.stringify(e.context);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
