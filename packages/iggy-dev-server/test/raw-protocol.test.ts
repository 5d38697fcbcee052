import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  EvictionReason,
  IggyEvictionError,
  Operation,
  decodeClassicResponse,
  decodeVsrServerFrame,
  encodeClassicRequest,
  encodeVsrRequestFrame,
  RESYNC_REQUIRED_PARTITION,
  decodeConsumerGroupAssignment,
  decodeConsumerGroupDetails,
  decodeConsumerOffsetInfo,
  decodeClientDetails,
  decodePollMessagesResponse,
  decodeSendMessagesResponse,
  decodeServerStats,
  decodeStreamDetails,
  decodeStreamInfo,
  decodeTopicDetails,
  decodeUserHeaders,
  encodeCreateConsumerGroupRequest,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeGetConsumerOffsetRequest,
  encodeGroupTarget,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  encodeDeleteConsumerOffsetRequest,
  encodeStreamTarget,
  encodeTopicTarget,
  encodeUserHeaders,
  headerValue,
  initChecksums,
  partitionForKey,
  partitioning,
} from '@agdx/iggy-protocol';
import type { HeaderValue, IggyProtocol, Identifier, Partitioning, PollingStrategy } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { PROTOCOLS, RawClient } from './helpers/raw-client.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
let server: DevServer;
let counter = 0;

beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

async function client(protocol: IggyProtocol): Promise<RawClient> {
  const c = await RawClient.connect(server.port, protocol);
  const r = await c.login();
  expect(r.ok).toBe(true);
  return c;
}

async function topicWith(c: RawClient, partitions: number): Promise<{ stream: string; topic: string }> {
  const stream = `s-${c.protocol}-${++counter}`;
  await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, c.protocol));
  await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: partitions }, c.protocol));
  return { stream, topic: 't' };
}

async function send(c: RawClient, stream: Identifier, topic: Identifier, p: Partitioning, payloads: string[], headers?: ReadonlyMap<string, HeaderValue>): Promise<number> {
  const body = encodeSendMessagesRequest({ stream, topic, partitioning: p, messages: payloads.map((x) => ({ payload: enc.encode(x), ...(headers ? { headers } : {}) })) }, c.protocol);
  const payload = await c.ok(CommandCode.SendMessages, body);
  if (c.protocol === 'classic') {
    expect(payload.length).toBe(0);
    return -1;
  }
  const [confirmation] = decodeSendMessagesResponse(payload);
  return confirmation?.partitionId ?? -1;
}

async function poll(c: RawClient, stream: Identifier, topic: Identifier, partitionId: number | undefined, strategy: PollingStrategy, count = 100, options: { consumer?: { kind: 'consumer' | 'group'; id: Identifier }; autoCommit?: boolean } = {}) {
  const body = encodePollMessagesRequest({
    consumer: options.consumer ?? { kind: 'consumer', id: 1 },
    stream,
    topic,
    ...(partitionId === undefined ? {} : { partitionId }),
    strategy,
    count,
    autoCommit: options.autoCommit ?? false,
  });
  return decodePollMessagesResponse(await c.ok(CommandCode.PollMessages, body), c.protocol, { verifyChecksums: true });
}

async function frameOf(c: RawClient): Promise<Uint8Array> {
  const f = await c.nextFrame();
  if (typeof f === 'string') throw new Error(`no frame: ${f}`);
  return f;
}

const texts = (r: { messages: readonly { payload: Uint8Array }[] }): string[] => r.messages.map((m) => dec.decode(m.payload));

describe.each(PROTOCOLS)('raw %s protocol', (protocol) => {
  it('refuses wrong credentials the way Iggy does, then accepts the right ones', async () => {
    const c = await RawClient.connect(server.port, protocol);
    if (protocol === 'vsr') {
      await expect(c.login('iggy', 'wrong')).rejects.toBeInstanceOf(IggyEvictionError);
      expect(await c.waitClosed()).toBe(true);
    } else {
      expect(await c.login('iggy', 'wrong')).toMatchObject({ ok: false, code: 42 });
      expect(await c.login('ab', 'iggy')).toMatchObject({ ok: false, code: 43 });
      expect(await c.login('iggy', 'iggy')).toMatchObject({ ok: true });
    }
    c.close();
  });

  it('answers Ping before login and refuses other commands with 40', async () => {
    const c = await RawClient.connect(server.port, protocol);
    await c.ok(CommandCode.Ping);
    if (protocol === 'vsr') {
      c.write(encodeVsrRequestFrame({ client: 99n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.GetStreams }));
      const denied = decodeVsrServerFrame(await frameOf(c));
      expect(denied.type === 'reply' && denied.header.status).toBe(40);
      // A replicated operation without a session is an eviction (NoSession).
      c.write(encodeVsrRequestFrame({ client: 99n, request: 1n, session: 1n, operation: Operation.CreateStream }, encodeCreateStreamRequest({ name: 'x' }, 'vsr')));
      const evicted = decodeVsrServerFrame(await frameOf(c));
      expect(evicted.type === 'eviction' && evicted.header.reason).toBe(EvictionReason.NoSession);
      expect(await c.waitClosed()).toBe(true);
    } else {
      c.write(encodeClassicRequest(CommandCode.GetStreams));
      expect(decodeClassicResponse(await frameOf(c)).status).toBe(40);
      c.write(encodeClassicRequest(CommandCode.LoginUser + 1000));
      expect(decodeClassicResponse(await frameOf(c)).status).toBe(3);
    }
    c.close();
  });

  it('creates streams and topics and finds them by numeric id and by name', async () => {
    const c = await client(protocol);
    const name = `streams-${protocol}-${++counter}`;
    const created = decodeStreamInfo(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol)), protocol);
    expect(created.name).toBe(name);
    expect(await c.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol))).toBe(1012);
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: created.id, name: 'topic-a', partitionsCount: 3 }, protocol));
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: name, name: 'topic-a', partitionsCount: 1 }, protocol))).toBe(2013);
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: name, name: 'too-many', partitionsCount: 1001 }, protocol))).toBe(2015);
    const byName = decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: name })), protocol);
    const byId = decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: created.id })), protocol);
    expect(byName?.id).toBe(created.id);
    expect(byId?.topics.map((t) => t.name)).toEqual(['topic-a']);
    const topic = decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream: created.id, topic: 'topic-a' })), protocol);
    expect(topic?.partitions.map((p) => p.id)).toEqual([0, 1, 2]);
    const topicById = decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream: name, topic: topic?.id ?? -1 })), protocol);
    expect(topicById?.name).toBe('topic-a');
    // Not found is an empty payload with status 0.
    expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: 'nope' })), protocol)).toBeUndefined();
    expect(decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream: name, topic: 'nope' })), protocol)).toBeUndefined();
    expect(await c.refused(CommandCode.GetTopics, encodeStreamTarget({ stream: 'nope' }))).toBe(1009);
    await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: name }));
    expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: name })), protocol)).toBeUndefined();
    c.close();
  });

  it('takes topic settings in the layout of the generation (VSR options, text durations, unknown keys)', async () => {
    const c = await client(protocol);
    const stream = `options-${protocol}-${++counter}`;
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, protocol));
    if (protocol === 'vsr') {
      const options = new Map<string, HeaderValue>([
        ['message_expiry', headerValue.string('15m 30s')],
        ['segment_size', headerValue.uint64(1_048_576n)],
      ]);
      const created = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1, options }, protocol)), protocol);
      expect(created?.messageExpiry).toBe(930_000_000n);
      expect([...(created?.options?.keys() ?? [])].sort()).toEqual(['message_expiry', 'segment_size']);
      expect([...(created?.derivedOptions?.keys() ?? [])].sort()).toEqual(['compression_algorithm', 'max_topic_size']);
      const bogus = new Map<string, HeaderValue>([['bogus', headerValue.bool(true)]]);
      expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 'u', partitionsCount: 1, options: bogus }, protocol))).toBe(4041);
      const bad = new Map<string, HeaderValue>([['message_expiry', headerValue.string('soon')]]);
      expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 'v', partitionsCount: 1, options: bad }, protocol))).toBe(4042);
    } else {
      const created = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1, messageExpiry: 5_000_000n, compression: 2 }, protocol)), protocol);
      expect(created?.messageExpiry).toBe(5_000_000n);
      expect(created?.compression).toBe(2);
      expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 'u', partitionsCount: 1, compression: 9 }, protocol))).toBe(3);
    }
    c.close();
  });

  it('routes balanced, partition-id and key sends like the Iggy server', async () => {
    const c = await client(protocol);
    const { stream, topic } = await topicWith(c, 3);
    for (let i = 0; i < 3; i++) await send(c, stream, topic, partitioning.balanced(), [`b${i}`]);
    await send(c, stream, topic, partitioning.partitionId(1), ['p1']);
    const key = 'session-42';
    const keyed = partitionForKey(enc.encode(key), 3);
    await send(c, stream, topic, partitioning.key(key), ['k1', 'k2']);
    const seen: string[][] = [];
    for (let p = 0; p < 3; p++) seen.push(texts(await poll(c, stream, topic, p, { kind: 'first' })));
    expect(seen[0]?.[0]).toBe('b0');
    expect(seen[1]?.slice(0, 2)).toEqual(['b1', 'p1']);
    expect(seen[2]?.[0]).toBe('b2');
    expect(seen[keyed]?.slice(-2)).toEqual(['k1', 'k2']);
    c.close();
  });

  it('polls with every strategy, broker timestamps in µs and monotonic, and auto-commits', async () => {
    const c = await client(protocol);
    const { stream, topic } = await topicWith(c, 1);
    for (let i = 0; i < 5; i++) {
      await send(c, stream, topic, partitioning.partitionId(0), [`m${i}a`, `m${i}b`]);
      server.advanceTime(1000n);
    }
    const all = await poll(c, stream, topic, 0, { kind: 'offset', value: 0n });
    expect(all.messages.map((m) => m.offset)).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i)));
    expect(all.currentOffset).toBe(9n);
    const nowMicros = BigInt(Date.now()) * 1000n;
    for (let i = 1; i < all.messages.length; i++) expect((all.messages[i]?.timestamp ?? 0n) >= (all.messages[i - 1]?.timestamp ?? 0n)).toBe(true);
    expect((all.messages[0]?.timestamp ?? 0n) > nowMicros - 60_000_000n).toBe(true);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'offset', value: 7n }))).toEqual(['m3b', 'm4a', 'm4b']);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'offset', value: 3n }, 2))).toEqual(['m1b', 'm2a']);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'offset', value: 10n }))).toEqual([]);
    const pivot = all.messages[4]?.timestamp ?? 0n;
    expect(texts(await poll(c, stream, topic, 0, { kind: 'timestamp', value: pivot }))).toEqual(['m2a', 'm2b', 'm3a', 'm3b', 'm4a', 'm4b']);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'first' }, 1))).toEqual(['m0a']);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'last' }, 3))).toEqual(['m3b', 'm4a', 'm4b']);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'first' }, 0))).toEqual([]);
    const consumer = { kind: 'consumer' as const, id: 'reader' };
    expect(texts(await poll(c, stream, topic, 0, { kind: 'next' }, 4, { consumer, autoCommit: true }))).toEqual(['m0a', 'm0b', 'm1a', 'm1b']);
    expect(texts(await poll(c, stream, topic, 0, { kind: 'next' }, 4, { consumer, autoCommit: true }))).toEqual(['m2a', 'm2b', 'm3a', 'm3b']);
    const info = decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0 })));
    expect(info).toEqual({ partitionId: 0, currentOffset: 9n, storedOffset: 7n });
    c.close();
  });

  it('keeps user headers of every kind, and opaque header bytes, byte-exact', async () => {
    const c = await client(protocol);
    const { stream, topic } = await topicWith(c, 1);
    const headers = new Map<string, HeaderValue>([
      ['raw', headerValue.raw(Uint8Array.of(0, 255, 7))],
      ['string', headerValue.string('héllo ✓')],
      ['bool', headerValue.bool(true)],
      ['i8', headerValue.int8(-128)],
      ['i16', headerValue.int16(-32768)],
      ['i32', headerValue.int32(-2147483648)],
      ['i64', headerValue.int64(-(2n ** 63n))],
      ['i128', headerValue.int128(-(2n ** 127n))],
      ['u8', headerValue.uint8(255)],
      ['u16', headerValue.uint16(65535)],
      ['u32', headerValue.uint32(4294967295)],
      ['u64', headerValue.uint64(2n ** 64n - 1n)],
      ['u128', headerValue.uint128(2n ** 128n - 1n)],
      ['f32', headerValue.float32(1.5)],
      ['f64', headerValue.float64(Math.PI)],
    ]);
    const block = encodeUserHeaders(headers);
    await send(c, stream, topic, partitioning.partitionId(0), ['with-headers'], headers);
    const opaque = Uint8Array.of(9, 8, 7, 6, 5);
    const body = encodeSendMessagesRequest({ stream, topic, partitioning: partitioning.partitionId(0), messages: [{ payload: Uint8Array.of(0, 1, 2, 255), rawHeaders: opaque }] }, protocol);
    await c.ok(CommandCode.SendMessages, body);
    const polled = await poll(c, stream, topic, 0, { kind: 'first' });
    expect(polled.messages[0]?.rawHeaders).toEqual(block);
    expect(decodeUserHeaders(polled.messages[0]?.rawHeaders ?? new Uint8Array(0))).toEqual(headers);
    expect(polled.messages[1]?.rawHeaders).toEqual(opaque);
    expect(polled.messages[1]?.payload).toEqual(Uint8Array.of(0, 1, 2, 255));
    c.close();
  });

  it('stores, gets and deletes consumer offsets with Iggy\'s error codes', async () => {
    const c = await client(protocol);
    const { stream, topic } = await topicWith(c, 2);
    await send(c, stream, topic, partitioning.partitionId(1), ['a', 'b']);
    const consumer = { kind: 'consumer' as const, id: 7 };
    const at = { consumer, stream, topic, partitionId: 1 };
    expect(decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest(at)))).toBeUndefined();
    await c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ ...at, offset: 1n }, protocol));
    expect(decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest(at)))?.storedOffset).toBe(1n);
    expect(await c.refused(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ ...at, offset: 2n }, protocol))).toBe(4100);
    expect(await c.refused(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ ...at, partitionId: 0, offset: 0n }, protocol))).toBe(4100);
    await c.ok(CommandCode.DeleteConsumerOffset, encodeDeleteConsumerOffsetRequest(at, protocol));
    expect(await c.refused(CommandCode.DeleteConsumerOffset, encodeDeleteConsumerOffsetRequest(at, protocol))).toBe(3021);
    const missing = { ...at, stream: 'nope' };
    expect(await c.refused(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ ...missing, offset: 0n }, protocol))).toBe(protocol === 'vsr' ? 20 : 1009);
    if (protocol === 'vsr') {
      // Iggy 0.9 needs an explicit partition for store and delete (audit X3).
      expect(await c.refused(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer, stream, topic, offset: 0n }, protocol))).toBe(20);
    }
    c.close();
  });

  it('refuses sends to unknown targets with the status of the generation', async () => {
    const c = await client(protocol);
    const { stream, topic } = await topicWith(c, 1);
    const unknownStream = encodeSendMessagesRequest({ stream: 'nope', topic, partitioning: partitioning.balanced(), messages: [{ payload: enc.encode('x') }] }, protocol);
    const unknownPartition = encodeSendMessagesRequest({ stream, topic, partitioning: partitioning.partitionId(5), messages: [{ payload: enc.encode('x') }] }, protocol);
    expect(await c.refused(CommandCode.SendMessages, unknownStream)).toBe(protocol === 'vsr' ? 20 : 1009);
    expect(await c.refused(CommandCode.SendMessages, unknownPartition)).toBe(protocol === 'vsr' ? 20 : 3007);
    expect(await c.refused(CommandCode.PollMessages, encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream, topic: 'nope', partitionId: 0, strategy: { kind: 'first' }, count: 1, autoCommit: false }))).toBe(2010);
    // The connection keeps serving after refusals.
    await send(c, stream, topic, partitioning.balanced(), ['ok']);
    c.close();
  });

  it('assigns group partitions, rebalances on join, leave and disconnect, and polls as a member', async () => {
    const a = await client(protocol);
    const { stream, topic } = await topicWith(a, 4);
    for (let p = 0; p < 4; p++) await send(a, stream, topic, partitioning.partitionId(p), [`p${p}-0`, `p${p}-1`]);
    await a.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'workers' }));
    expect(await a.refused(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'workers' }))).toBe(5004);
    const target = encodeGroupTarget({ stream, topic, group: 'workers' });
    expect(await a.refused(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream, topic, group: 'nope' }))).toBe(5000);
    await a.ok(CommandCode.JoinConsumerGroup, target);
    const b = await client(protocol);
    await b.ok(CommandCode.JoinConsumerGroup, target);
    const me = decodeClientDetails(await b.ok(CommandCode.GetMe));
    expect(me.consumerGroups).toHaveLength(1);
    const details = decodeConsumerGroupDetails(await a.ok(CommandCode.GetConsumerGroup, target));
    expect(details?.members).toHaveLength(2);
    const shares = details?.members.map((m) => m.partitions.length);
    expect(shares).toEqual([2, 2]);
    expect(details?.members.flatMap((m) => m.partitions).sort()).toEqual([0, 1, 2, 3]);
    const bShare = details?.members.find((m) => m.id === me.clientId)?.partitions ?? [];
    expect(bShare).toHaveLength(2);

    const group = { kind: 'group' as const, id: 'workers' };
    if (protocol === 'vsr') {
      const assignment = decodeConsumerGroupAssignment(await b.ok(CommandCode.SyncConsumerGroup, target));
      expect([...assignment.partitions].sort()).toEqual([...bShare].sort());
      const owned = bShare[0] ?? 0;
      const r = await poll(b, stream, topic, owned, { kind: 'next' }, 10, { consumer: group, autoCommit: true });
      expect(texts(r)).toEqual([`p${owned}-0`, `p${owned}-1`]);
      const foreign = [0, 1, 2, 3].find((p) => !bShare.includes(p)) ?? 0;
      expect((await poll(b, stream, topic, foreign, { kind: 'next' }, 10, { consumer: group })).partitionId).toBe(RESYNC_REQUIRED_PARTITION);
      expect((await poll(b, stream, topic, undefined, { kind: 'next' }, 10, { consumer: group })).partitionId).toBe(0);
    } else {
      const seen = new Set<number>();
      for (let i = 0; i < 2; i++) {
        const r = await poll(b, stream, topic, undefined, { kind: 'next' }, 10, { consumer: group, autoCommit: true });
        expect(bShare).toContain(r.partitionId);
        expect(texts(r)).toEqual([`p${r.partitionId}-0`, `p${r.partitionId}-1`]);
        seen.add(r.partitionId);
      }
      expect(seen.size).toBe(2);
    }
    await b.ok(CommandCode.LeaveConsumerGroup, target);
    expect(await b.refused(CommandCode.LeaveConsumerGroup, target)).toBe(5006);
    expect(decodeConsumerGroupDetails(await a.ok(CommandCode.GetConsumerGroup, target))?.members.map((m) => m.partitions)).toEqual([[0, 1, 2, 3]]);
    await b.ok(CommandCode.JoinConsumerGroup, target);
    expect(decodeConsumerGroupDetails(await a.ok(CommandCode.GetConsumerGroup, target))?.members).toHaveLength(2);
    b.close();
    await expect.poll(async () => decodeConsumerGroupDetails(await a.ok(CommandCode.GetConsumerGroup, target))?.members.length).toBe(1);
    a.close();
  });

  it('answers GetMe and GetStats', async () => {
    const c = await client(protocol);
    const me = decodeClientDetails(await c.ok(CommandCode.GetMe));
    expect(me.userId).toBe(0);
    expect(me.transport).toBe(1);
    const stats = decodeServerStats(await c.ok(CommandCode.GetStats));
    expect(stats.clientsCount).toBeGreaterThanOrEqual(1);
    expect(stats.serverVersion).toContain('agdx-dev');
    c.close();
  });
});
