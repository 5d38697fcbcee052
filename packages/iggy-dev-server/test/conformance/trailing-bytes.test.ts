// Conformance: bytes after a request body. Iggy 0.8 decodes every control command from a
// prefix and logs the rest (core/server/src/binary/dispatch.rs `decode`); Iggy 0.9 decodes with
// `decode_from`, which ignores them (core/binary_protocol/src/codec.rs). SendMessages is the
// exception (its batch is checked to the byte). VSR bodies whose options block runs to the end
// (CreateStream, UpdateStream, CreateTopic, UpdateTopic) read extra bytes as options, so they
// are only tolerant in classic. One case per command the official Node SDK sends.
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  OptionsScope,
  decodeClassicResponse,
  decodeClientDetails,
  encodeClassicRequest,
  encodeLoginUserRequest,
  UserStatus,
  decodeUserDetails,
  encodeChangePasswordRequest,
  encodeCreateConsumerGroupRequest,
  encodeCreateTokenRequest,
  encodeCreateUserRequest,
  encodeDeleteTokenRequest,
  encodeUpdatePermissionsRequest,
  encodeUpdateUserRequest,
  encodeUserTarget,
  globalPermissions,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeDeleteConsumerOffsetRequest,
  encodeDeleteSegmentsRequest,
  encodeDescribeOptionsRequest,
  encodeFlushUnsavedBufferRequest,
  encodeGetClientRequest,
  encodeGetConsumerOffsetRequest,
  encodeGroupTarget,
  encodePartitionsRequest,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  encodeStreamTarget,
  encodeTopicTarget,
  encodeUpdateStreamRequest,
  encodeUpdateTopicRequest,
  partitioning,
} from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { STRICT_REQUESTS } from '../../src/server/request-decoders.js';
import { suiteServer, PROTOCOLS, RawClient, createTopic, fresh, send, withTrailing } from './harness.js';

const node = suiteServer('memory');

/** What a case works on: a stream with topic `t` (2 partitions, messages in 0), group `g` joined. */
interface Fixture {
  readonly c: RawClient;
  readonly protocol: IggyProtocol;
  readonly stream: string;
  readonly topic: string;
}

interface Case {
  readonly name: string;
  readonly code: number;
  readonly body: (f: Fixture) => Uint8Array | Promise<Uint8Array>;
  /** Only this generation has the command, or tolerates extra bytes after it. */
  readonly only?: IggyProtocol;
  /** A read: asked twice on one fixture, both replies must be byte-identical. */
  readonly read?: true;
}

const consumer = { kind: 'consumer' as const, id: 3 };

/** Creates a user for a case that changes or deletes one; returns its id. */
async function newUser(f: Fixture): Promise<number> {
  const body = encodeCreateUserRequest({ username: fresh('u').slice(0, 40), password: 'secret1', status: UserStatus.Active }, f.protocol);
  return decodeUserDetails(await f.c.ok(CommandCode.CreateUser, body), f.protocol)?.id as number;
}

/** Creates a personal access token for a case that deletes one; returns its name. */
async function newToken(f: Fixture): Promise<string> {
  const name = fresh('t').slice(0, 28);
  await f.c.ok(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name, expiry: 0n }));
  return name;
}

const CASES: readonly Case[] = [
  { name: 'Ping', code: CommandCode.Ping, body: () => new Uint8Array(0) },
  { name: 'GetStats', code: CommandCode.GetStats, body: () => new Uint8Array(0) },
  { name: 'GetMe', code: CommandCode.GetMe, body: () => new Uint8Array(0), read: true },
  { name: 'GetClients', code: CommandCode.GetClients, body: () => new Uint8Array(0) },
  { name: 'GetClient', code: CommandCode.GetClient, body: async (f) => encodeGetClientRequest(decodeClientDetails(await f.c.ok(CommandCode.GetMe)).clientId), read: true },
  { name: 'DescribeOptions', code: CommandCode.DescribeOptions, body: () => encodeDescribeOptionsRequest(OptionsScope.Topic), only: 'vsr', read: true },
  { name: 'GetUsers', code: CommandCode.GetUsers, body: () => new Uint8Array(0), read: true },
  { name: 'GetUser', code: CommandCode.GetUser, body: () => encodeUserTarget({ user: 0 }), read: true },
  { name: 'CreateUser', code: CommandCode.CreateUser, body: (f) => encodeCreateUserRequest({ username: fresh('c').slice(0, 40), password: 'secret1', status: UserStatus.Active }, f.protocol), only: 'classic' },
  { name: 'UpdateUser', code: CommandCode.UpdateUser, body: async (f) => encodeUpdateUserRequest({ user: await newUser(f), status: UserStatus.Inactive }, f.protocol), only: 'classic' },
  { name: 'UpdatePermissions', code: CommandCode.UpdatePermissions, body: async (f) => encodeUpdatePermissionsRequest({ user: await newUser(f), permissions: { global: globalPermissions(true), streams: [] } }) },
  { name: 'ChangePassword', code: CommandCode.ChangePassword, body: async (f) => encodeChangePasswordRequest({ user: await newUser(f), currentPassword: 'secret1', newPassword: 'secret2' }) },
  { name: 'DeleteUser', code: CommandCode.DeleteUser, body: async (f) => encodeUserTarget({ user: await newUser(f) }) },
  { name: 'GetPersonalAccessTokens', code: CommandCode.GetPersonalAccessTokens, body: () => new Uint8Array(0), read: true },
  { name: 'CreatePersonalAccessToken', code: CommandCode.CreatePersonalAccessToken, body: () => encodeCreateTokenRequest({ name: fresh('t').slice(0, 28), expiry: 0n }) },
  { name: 'DeletePersonalAccessToken', code: CommandCode.DeletePersonalAccessToken, body: async (f) => encodeDeleteTokenRequest({ name: await newToken(f) }) },
  { name: 'GetStreams', code: CommandCode.GetStreams, body: () => new Uint8Array(0) },
  { name: 'GetStream', code: CommandCode.GetStream, body: (f) => encodeStreamTarget({ stream: f.stream }), read: true },
  { name: 'CreateStream', code: CommandCode.CreateStream, body: (f) => encodeCreateStreamRequest({ name: fresh('x') }, f.protocol), only: 'classic' },
  { name: 'UpdateStream', code: CommandCode.UpdateStream, body: (f) => encodeUpdateStreamRequest({ stream: f.stream, name: f.stream }, f.protocol), only: 'classic' },
  { name: 'PurgeStream', code: CommandCode.PurgeStream, body: (f) => encodeStreamTarget({ stream: f.stream }) },
  { name: 'DeleteStream', code: CommandCode.DeleteStream, body: (f) => encodeStreamTarget({ stream: f.stream }) },
  { name: 'GetTopics', code: CommandCode.GetTopics, body: (f) => encodeStreamTarget({ stream: f.stream }), read: true },
  { name: 'GetTopic', code: CommandCode.GetTopic, body: (f) => encodeTopicTarget(f), read: true },
  { name: 'CreateTopic', code: CommandCode.CreateTopic, body: (f) => encodeCreateTopicRequest({ stream: f.stream, name: 'u', partitionsCount: 1 }, f.protocol), only: 'classic' },
  { name: 'UpdateTopic', code: CommandCode.UpdateTopic, body: (f) => encodeUpdateTopicRequest({ stream: f.stream, topic: f.topic, name: f.topic }, f.protocol), only: 'classic' },
  { name: 'PurgeTopic', code: CommandCode.PurgeTopic, body: (f) => encodeTopicTarget(f) },
  { name: 'DeleteTopic', code: CommandCode.DeleteTopic, body: (f) => encodeTopicTarget(f) },
  { name: 'CreatePartitions', code: CommandCode.CreatePartitions, body: (f) => encodePartitionsRequest({ ...f, partitionsCount: 1 }) },
  { name: 'DeletePartitions', code: CommandCode.DeletePartitions, body: (f) => encodePartitionsRequest({ ...f, partitionsCount: 1 }) },
  { name: 'DeleteSegments', code: CommandCode.DeleteSegments, body: (f) => encodeDeleteSegmentsRequest({ ...f, partitionId: 0, segmentsCount: 1 }) },
  { name: 'FlushUnsavedBuffer', code: CommandCode.FlushUnsavedBuffer, body: (f) => encodeFlushUnsavedBufferRequest({ ...f, partitionId: 0, fsync: false }), only: 'classic', read: true },
  { name: 'PollMessages', code: CommandCode.PollMessages, body: (f) => encodePollMessagesRequest({ consumer, ...f, partitionId: 0, strategy: { kind: 'first' }, count: 1, autoCommit: false }), read: true },
  { name: 'GetConsumerOffset', code: CommandCode.GetConsumerOffset, body: (f) => encodeGetConsumerOffsetRequest({ consumer, ...f, partitionId: 0 }), read: true },
  { name: 'StoreConsumerOffset', code: CommandCode.StoreConsumerOffset, body: (f) => encodeStoreConsumerOffsetRequest({ consumer, ...f, partitionId: 0, offset: 0n }, f.protocol) },
  {
    name: 'DeleteConsumerOffset',
    code: CommandCode.DeleteConsumerOffset,
    body: async (f) => {
      await f.c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer, ...f, partitionId: 0, offset: 0n }, f.protocol));
      return encodeDeleteConsumerOffsetRequest({ consumer, ...f, partitionId: 0 }, f.protocol);
    },
  },
  { name: 'GetConsumerGroups', code: CommandCode.GetConsumerGroups, body: (f) => encodeTopicTarget(f), read: true },
  { name: 'GetConsumerGroup', code: CommandCode.GetConsumerGroup, body: (f) => encodeGroupTarget({ ...f, group: 'g' }), read: true },
  { name: 'CreateConsumerGroup', code: CommandCode.CreateConsumerGroup, body: (f) => encodeCreateConsumerGroupRequest({ ...f, name: 'h' }) },
  { name: 'JoinConsumerGroup', code: CommandCode.JoinConsumerGroup, body: (f) => encodeGroupTarget({ ...f, group: 'g' }) },
  { name: 'SyncConsumerGroup', code: CommandCode.SyncConsumerGroup, body: (f) => encodeGroupTarget({ ...f, group: 'g' }), only: 'vsr' },
  { name: 'LeaveConsumerGroup', code: CommandCode.LeaveConsumerGroup, body: (f) => encodeGroupTarget({ ...f, group: 'g' }) },
  { name: 'DeleteConsumerGroup', code: CommandCode.DeleteConsumerGroup, body: (f) => encodeGroupTarget({ ...f, group: 'g' }) },
];

async function fixture(protocol: IggyProtocol): Promise<Fixture> {
  const c = await node.client(protocol);
  const { stream, topic } = await createTopic(c, 2);
  await send(c, stream, topic, 0, ['a', 'b']);
  await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'g' }));
  await c.ok(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream, topic, group: 'g' }));
  return { c, protocol, stream, topic };
}

describe.each(PROTOCOLS)('%s: extra bytes after the body', (protocol) => {
  const cases = CASES.filter((k) => k.only === undefined || k.only === protocol);
  it.each(cases.map((k) => [k.name, k] as const))('%s is answered as without them', async (_name, k) => {
    expect(STRICT_REQUESTS.has(k.code)).toBe(false);
    const plain = await fixture(protocol);
    const expected = await plain.c.call(k.code, await k.body(plain));
    expect(expected.ok).toBe(true);
    const extra = k.read === true ? plain : await fixture(protocol);
    const outcome = await extra.c.call(k.code, withTrailing(await k.body(extra), [3, 0, 0, 0, 0xff]));
    expect(outcome.ok).toBe(true);
    if (k.read === true && outcome.ok && expected.ok) expect(outcome.payload).toEqual(expected.payload);
  });

  it('SendMessages is strict: a body with extra bytes is refused and nothing is stored', async () => {
    expect(STRICT_REQUESTS.has(CommandCode.SendMessages)).toBe(true);
    const f = await fixture(protocol);
    const body = encodeSendMessagesRequest({ stream: f.stream, topic: f.topic, partitioning: partitioning.partitionId(1), messages: [{ payload: new TextEncoder().encode('x') }] }, protocol);
    const outcome = await f.c.call(CommandCode.SendMessages, withTrailing(body));
    expect(outcome.ok).toBe(false);
    const poll = encodePollMessagesRequest({ consumer, stream: f.stream, topic: f.topic, partitionId: 1, strategy: { kind: 'first' }, count: 10, autoCommit: false });
    const reply = await f.c.ok(CommandCode.PollMessages, poll);
    // The poll prefix: [partition u32][current_offset u64][count u32]; nothing was appended.
    expect(new DataView(reply.buffer, reply.byteOffset, reply.byteLength).getUint32(12, true)).toBe(0);
  });
});

describe('classic login', () => {
  it('LoginUser with extra bytes logs in (0.8 decodes every control command from a prefix)', async () => {
    const c = await RawClient.connect(node.server.port, 'classic');
    c.write(encodeClassicRequest(CommandCode.LoginUser, withTrailing(encodeLoginUserRequest({ username: 'iggy', password: 'iggy' }))));
    const frame = await c.nextFrame();
    if (typeof frame === 'string') throw new Error(`no reply: ${frame}`);
    expect(decodeClassicResponse(frame).status).toBe(0);
    c.write(encodeClassicRequest(CommandCode.GetMe));
    const me = await c.nextFrame();
    if (typeof me === 'string') throw new Error(`no reply: ${me}`);
    expect(decodeClassicResponse(me).status).toBe(0);
    c.close();
  });
});
