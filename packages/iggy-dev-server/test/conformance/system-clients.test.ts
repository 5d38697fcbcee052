// Conformance: system and client commands, both generations. Rules from the Iggy sources:
// core/server dispatch.rs (0.9 GetClient / GetClients / DescribeOptions, FlushUnsavedBuffer
// answered FeatureUnavailable), the 0.8.0 get_client handler (id 0 → InvalidClientId 101) and
// core/binary_protocol responses/clients and responses/system/describe_options.rs.
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  HEADER_KIND_CODES,
  NO_USER_ID,
  OptionsScope,
  decodeClientDetails,
  decodeClientList,
  decodeOptionDescriptors,
  decodeServerStats,
  encodeCreateConsumerGroupRequest,
  encodeDescribeOptionsRequest,
  encodeFlushUnsavedBufferRequest,
  encodeGetClientRequest,
  encodeGroupTarget,
} from '@agdx/iggy-protocol';
import { suiteServer, PROTOCOLS, RawClient, createTopic, send } from './harness.js';

const node = suiteServer('memory');

describe.each(PROTOCOLS)('system (%s)', (protocol) => {
  it('Ping answers empty, before and after login; GetStats counts what is stored', async () => {
    const anonymous = await RawClient.connect(node.server.port, protocol);
    expect((await anonymous.ok(CommandCode.Ping)).length).toBe(0);
    anonymous.close();
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 2);
    await send(c, stream, topic, 1, ['a', 'b', 'c']);
    const stats = decodeServerStats(await c.ok(CommandCode.GetStats));
    expect(stats.streamsCount).toBeGreaterThanOrEqual(1);
    expect(stats.partitionsCount).toBeGreaterThanOrEqual(2);
    expect(stats.messagesCount).toBeGreaterThanOrEqual(3n);
    expect(stats.clientsCount).toBeGreaterThanOrEqual(1);
    expect(stats.serverVersion).toMatch(/^0\.9\./);
  });

  it('GetMe, GetClient and GetClients describe the same connection, with its group memberships', async () => {
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 1);
    await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'g' }));
    await c.ok(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream, topic, group: 'g' }));
    const me = decodeClientDetails(await c.ok(CommandCode.GetMe));
    expect(me).toMatchObject({ userId: 0, transport: 1 });
    expect(me.consumerGroups).toHaveLength(1);
    const byId = decodeClientDetails(await c.ok(CommandCode.GetClient, encodeGetClientRequest(me.clientId)));
    expect(byId).toEqual(me);
    // A connection that never logged in is listed too, with Iggy's "no user" id.
    const anonymous = await RawClient.connect(node.server.port, protocol);
    await anonymous.ok(CommandCode.Ping);
    const list = decodeClientList(await c.ok(CommandCode.GetClients));
    expect(list.find((x) => x.clientId === me.clientId)).toEqual({ clientId: me.clientId, userId: 0, transport: 1, address: me.address, consumerGroupsCount: 1 });
    expect(list.some((x) => x.userId === NO_USER_ID)).toBe(true);
    anonymous.close();
  });

  it('GetClient of an unknown client answers an empty body (the SDK’s null); id 0 is 101 in Iggy 0.8', async () => {
    const c = await node.client(protocol);
    expect((await c.ok(CommandCode.GetClient, encodeGetClientRequest(0xffff_fff0))).length).toBe(0);
    if (protocol === 'classic') expect(await c.refused(CommandCode.GetClient, encodeGetClientRequest(0))).toBe(101);
    else expect((await c.ok(CommandCode.GetClient, encodeGetClientRequest(0))).length).toBe(0);
    // An undecodable body: 0.9 finds no client (empty body); 0.8 refuses the truncated request
    // with InvalidCommand (3, core/server/src/binary/dispatch.rs `decode`).
    if (protocol === 'vsr') expect((await c.ok(CommandCode.GetClient, new Uint8Array(2))).length).toBe(0);
    else expect(await c.refused(CommandCode.GetClient, new Uint8Array(2))).toBe(3);
  });
});

describe('DescribeOptions (VSR only)', () => {
  it('lists the topic options this server accepts with its defaults; streams and users have none', async () => {
    const c = await node.client('vsr');
    const topic = decodeOptionDescriptors(await c.ok(CommandCode.DescribeOptions, encodeDescribeOptionsRequest(OptionsScope.Topic)));
    const keys = topic.map((o) => o.key);
    expect(keys).toEqual(expect.arrayContaining(['message_expiry', 'max_topic_size', 'compression_algorithm', 'segment_size']));
    const expiry = topic.find((o) => o.key === 'message_expiry');
    expect(expiry?.kindCode).toBe(HEADER_KIND_CODES.uint64);
    expect(new TextDecoder().decode(topic.find((o) => o.key === 'compression_algorithm')?.defaultValue)).toBe('none');
    expect(decodeOptionDescriptors(await c.ok(CommandCode.DescribeOptions, encodeDescribeOptionsRequest(OptionsScope.Stream)))).toEqual([]);
    expect(decodeOptionDescriptors(await c.ok(CommandCode.DescribeOptions, encodeDescribeOptionsRequest(OptionsScope.User)))).toEqual([]);
    // An unknown scope fails the request decode, which 0.9 answers with InvalidCommand (responses.rs).
    expect(await c.refused(CommandCode.DescribeOptions, Uint8Array.of(9))).toBe(3);
  });

  it('is an unknown command to a classic (0.8) client: 3', async () => {
    const c = await node.client('classic');
    expect(await c.refused(CommandCode.DescribeOptions, encodeDescribeOptionsRequest(OptionsScope.Topic))).toBe(3);
  });
});

describe('FlushUnsavedBuffer', () => {
  it('classic (0.8 flushes): checks the target, then succeeds; VSR (0.9): FeatureUnavailable 5', async () => {
    const classic = await node.client('classic');
    const { stream, topic } = await createTopic(classic, 1);
    await classic.ok(CommandCode.FlushUnsavedBuffer, encodeFlushUnsavedBufferRequest({ stream, topic, partitionId: 0, fsync: true }));
    expect(await classic.refused(CommandCode.FlushUnsavedBuffer, encodeFlushUnsavedBufferRequest({ stream, topic, partitionId: 4, fsync: false }))).toBe(3007);
    expect(await classic.refused(CommandCode.FlushUnsavedBuffer, encodeFlushUnsavedBufferRequest({ stream, topic: 'nope', partitionId: 0, fsync: false }))).toBe(2010);
    const vsr = await node.client('vsr');
    expect(await vsr.refused(CommandCode.FlushUnsavedBuffer, encodeFlushUnsavedBufferRequest({ stream, topic, partitionId: 0, fsync: true }))).toBe(5);
  });
});
