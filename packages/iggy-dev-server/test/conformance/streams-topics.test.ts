// Conformance: streams, topics, partitions and segments, both generations, in memory and on
// disk. Rules from the Iggy sources: core/server (0.8.0 handlers, 0.9 dispatch.rs),
// core/metadata (stm/stream.rs, stm/id_slab.rs) and core/binary_protocol (requests).
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  Operation,
  decodeStreamDetails,
  decodeStreamInfo,
  decodeStreamList,
  decodeTopicDetails,
  decodeTopicList,
  decodeVsrServerFrame,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeDeleteSegmentsRequest,
  encodePartitionsRequest,
  encodeStreamTarget,
  encodeTopicTarget,
  encodeUpdateStreamRequest,
  encodeUpdateTopicRequest,
} from '@agdx/iggy-protocol';
import { suiteServer, PROTOCOLS, STORAGES, createTopic, fresh, poll, send, texts, topicDetails, withTrailing } from './harness.js';

describe.each(STORAGES)('streams and topics (%s)', (storage) => {
  const node = suiteServer(storage);

  describe.each(PROTOCOLS)('%s', (protocol) => {
    it('streams: create, get by id and name, list, rename, purge, delete; duplicate names are 1012', async () => {
      const c = await node.client(protocol);
      const name = fresh('stream');
      const created = decodeStreamInfo(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol)), protocol);
      expect(created).toMatchObject({ name, topicsCount: 0, messagesCount: 0n });
      expect(await c.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol))).toBe(1012);
      for (const id of [created.id, name]) expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: id })), protocol)).toMatchObject({ id: created.id, name, topics: [] });
      expect(decodeStreamList(await c.ok(CommandCode.GetStreams), protocol).map((s) => s.name)).toContain(name);
      const renamed = fresh('renamed');
      await c.ok(CommandCode.UpdateStream, encodeUpdateStreamRequest({ stream: created.id, name: renamed }, protocol));
      expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: renamed })), protocol)?.id).toBe(created.id);
      await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: renamed, name: 't', partitionsCount: 1 }, protocol));
      await send(c, renamed, 't', 0, ['a', 'b']);
      await c.ok(CommandCode.PurgeStream, encodeStreamTarget({ stream: renamed }));
      expect((await topicDetails(c, renamed, 't')).messagesCount).toBe(0n);
      await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: renamed }));
      // An unknown stream reads as an empty body (the SDK's "not found"); deleting it is 1009.
      expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: renamed })), protocol)).toBeUndefined();
      expect(await c.refused(CommandCode.DeleteStream, encodeStreamTarget({ stream: renamed }))).toBe(1009);
    });

    it('topics: create with partitions, get, list, update, purge; DeleteTopic in the official SDK encoding (a trailing u32 partitions count) is accepted', async () => {
      const c = await node.client(protocol);
      const { stream } = await createTopic(c, 2);
      const created = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 'orders', partitionsCount: 3 }, protocol)), protocol);
      expect(created?.partitions.map((p) => p.id)).toEqual([0, 1, 2]);
      expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 'orders', partitionsCount: 1 }, protocol))).toBe(2013);
      expect(decodeTopicList(await c.ok(CommandCode.GetTopics, encodeStreamTarget({ stream })), protocol).map((t) => t.name).sort()).toEqual(['orders', 't']);
      await c.ok(CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream, topic: 'orders', name: 'orders-v2', messageExpiry: 60_000_000n }, protocol));
      expect(await topicDetails(c, stream, 'orders-v2')).toMatchObject({ name: 'orders-v2', messageExpiry: 60_000_000n });
      await send(c, stream, 'orders-v2', 1, ['x', 'y']);
      await c.ok(CommandCode.PurgeTopic, encodeTopicTarget({ stream, topic: 'orders-v2' }));
      expect((await topicDetails(c, stream, 'orders-v2')).partitions[1]?.messagesCount).toBe(0n);
      // core/binary_protocol DeleteTopicRequest reads [stream][topic]; the server ignores the rest.
      await c.ok(CommandCode.DeleteTopic, withTrailing(encodeTopicTarget({ stream, topic: 'orders-v2' }), [3, 0, 0, 0]));
      expect(decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream, topic: 'orders-v2' })), protocol)).toBeUndefined();
      expect(await c.refused(CommandCode.DeleteTopic, withTrailing(encodeTopicTarget({ stream, topic: 'orders-v2' })))).toBe(2010);
    });

    it('partitions: added at the end, removed from the end; counts outside 1..1000 are refused', async () => {
      const c = await node.client(protocol);
      const { stream, topic } = await createTopic(c, 1);
      await c.ok(CommandCode.CreatePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 3 }));
      expect((await topicDetails(c, stream, topic)).partitions.map((p) => p.id)).toEqual([0, 1, 2, 3]);
      await c.ok(CommandCode.DeletePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 2 }));
      expect((await topicDetails(c, stream, topic)).partitions.map((p) => p.id)).toEqual([0, 1]);
      // 0 is TooManyPartitions in both generations (0.8 create_partitions_handler.rs, 0.9 dispatch.rs
      // validate_partitions_change_count), checked before the target resolves.
      expect(await c.refused(CommandCode.CreatePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 0 }))).toBe(2015);
      expect(await c.refused(CommandCode.DeletePartitions, encodePartitionsRequest({ stream: fresh('nope'), topic, partitionsCount: 0 }))).toBe(2015);
      expect(await c.refused(CommandCode.DeletePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 5 }))).toBe(2019);
      // A bound of this server, not Iggy's: a topic holds at most 1000 partitions in all.
      expect(await c.refused(CommandCode.CreatePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 1000 }))).toBe(2015);
    });

    it('stream and topic ids: the lowest free id is handed out again after a delete (core/metadata id slab)', async () => {
      const c = await node.client(protocol);
      const names = [fresh('a'), fresh('b'), fresh('c')];
      const ids: number[] = [];
      for (const name of names) ids.push(decodeStreamInfo(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol)), protocol).id);
      await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: ids[1] as number }));
      await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: ids[0] as number }));
      const again = decodeStreamInfo(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('d') }, protocol)), protocol);
      expect(again.id).toBe(Math.min(ids[0] as number, ids[1] as number));
      // Its topics start empty: nothing of the deleted stream shows through.
      expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: again.id })), protocol)?.topics).toEqual([]);

      const { stream } = await createTopic(c, 1);
      for (const name of ['u', 'v', 'w']) await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name, partitionsCount: 1 }, protocol));
      const before = decodeTopicList(await c.ok(CommandCode.GetTopics, encodeStreamTarget({ stream })), protocol);
      const u = before.find((t) => t.name === 'u')?.id as number;
      await send(c, stream, 'u', 0, ['old']);
      await c.ok(CommandCode.DeleteTopic, encodeTopicTarget({ stream, topic: 'u' }));
      const reused = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 'x', partitionsCount: 1 }, protocol)), protocol);
      expect(reused?.id).toBe(u);
      expect(reused?.partitions[0]?.messagesCount).toBe(0n);
      expect(texts(await poll(c, { stream, topic: 'x', partitionId: 0 }, { kind: 'first' }))).toEqual([]);
    });

    it('DeleteSegments: unknown stream, topic or partition is a typed refusal (1009, 2010, 3007); a known partition succeeds', async () => {
      const c = await node.client(protocol);
      const { stream, topic } = await createTopic(c, 1);
      await send(c, stream, topic, 0, ['kept']);
      const req = (s: string | number, t: string | number, partitionId: number) => encodeDeleteSegmentsRequest({ stream: s, topic: t, partitionId, segmentsCount: 1 });
      expect(await c.refused(CommandCode.DeleteSegments, req(fresh('nope'), topic, 0))).toBe(1009);
      expect(await c.refused(CommandCode.DeleteSegments, req(stream, 'nope', 0))).toBe(2010);
      expect(await c.refused(CommandCode.DeleteSegments, req(stream, topic, 5))).toBe(3007);
      // One open segment and nothing sealed: Iggy commits a no-op truncate and answers success.
      await c.ok(CommandCode.DeleteSegments, req(stream, topic, 0));
      expect(texts(await poll(c, { stream, topic, partitionId: 0 }, { kind: 'first' }))).toEqual(['kept']);
    });

    it('DeleteSegments replies: under VSR as TruncatePartition (68), result-framed; an undecodable VSR body gets an empty reply under 138', async () => {
      const c = await node.client(protocol);
      const { stream, topic } = await createTopic(c, 1);
      const garbage = Uint8Array.of(9, 9, 9);
      if (protocol === 'classic') {
        // Truncated (an identifier of 9 bytes in a 3-byte body): 0.8's InvalidCommand.
        expect(await c.refused(CommandCode.DeleteSegments, garbage)).toBe(3);
        return;
      }
      const replyOf = async (body: Uint8Array) => {
        const request = c.vsr.command(CommandCode.DeleteSegments, body);
        c.write(request.frame);
        const frame = await c.nextFrame();
        if (typeof frame === 'string') throw new Error(`no reply: ${frame}`);
        return { decoded: decodeVsrServerFrame(frame), outcome: c.vsr.handleFrame(frame) };
      };
      const refused = await replyOf(encodeDeleteSegmentsRequest({ stream, topic: 'nope', partitionId: 0, segmentsCount: 1 }));
      expect(refused.decoded).toMatchObject({ type: 'reply', header: { operation: Operation.TruncatePartition, status: 0 } });
      expect(refused.outcome).toMatchObject({ ok: false, error: { code: 2010 } });
      const done = await replyOf(encodeDeleteSegmentsRequest({ stream, topic, partitionId: 0, segmentsCount: 1 }));
      expect(done.decoded).toMatchObject({ type: 'reply', header: { operation: Operation.TruncatePartition, status: 0 } });
      expect(done.outcome).toMatchObject({ ok: true });
      const undecodable = await replyOf(garbage);
      expect(undecodable.decoded).toMatchObject({ type: 'reply', header: { operation: Operation.DeleteSegments, status: 0 }, body: new Uint8Array(0) });
      expect(undecodable.outcome).toMatchObject({ ok: true });
    });
  });
});

describe('on disk across restarts', () => {
  const node = suiteServer('disk', { segmentBytes: 4096 });

  it('DeleteSegments deletes the oldest sealed segments and their messages, never the active one; offsets go on', async () => {
    const c = await node.client('vsr');
    const { stream, topic } = await createTopic(c, 1);
    const payload = 'p'.repeat(1500);
    for (let i = 0; i < 8; i++) await send(c, stream, topic, 0, [`${i}:${payload}`]);
    const before = (await topicDetails(c, stream, topic)).partitions[0];
    expect(before?.segmentsCount).toBeGreaterThan(2);
    await c.ok(CommandCode.DeleteSegments, encodeDeleteSegmentsRequest({ stream, topic, partitionId: 0, segmentsCount: 1 }));
    const after = (await topicDetails(c, stream, topic)).partitions[0];
    expect(after?.segmentsCount).toBe((before?.segmentsCount ?? 0) - 1);
    const first = await poll(c, { stream, topic, partitionId: 0 }, { kind: 'first' });
    expect(first.messages[0]?.offset).toBeGreaterThan(0n);
    expect(first.messages.at(-1)?.offset).toBe(7n);
    // Asking for more than there are deletes every sealed one and keeps the active segment.
    await c.ok(CommandCode.DeleteSegments, encodeDeleteSegmentsRequest({ stream, topic, partitionId: 0, segmentsCount: 100 }));
    expect((await topicDetails(c, stream, topic)).partitions[0]?.segmentsCount).toBe(1);
    const rest = await poll(c, { stream, topic, partitionId: 0 }, { kind: 'first' });
    expect(rest.messages.length).toBeGreaterThan(0);
    expect(rest.messages.at(-1)?.offset).toBe(7n);
    await send(c, stream, topic, 0, ['next']);
    await node.stop();
    await node.start();
    const c2 = await node.client('classic');
    const reread = await poll(c2, { stream, topic, partitionId: 0 }, { kind: 'first' });
    expect(reread.messages.map((m) => m.offset)).toEqual(rest.messages.map((m) => m.offset).concat([8n]));
  });

  it('the lowest free stream id holds after a restart (it depends only on the ids present)', async () => {
    const c = await node.client('vsr');
    const a = decodeStreamInfo(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('ra') }, 'vsr')), 'vsr');
    const b = decodeStreamInfo(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('rb') }, 'vsr')), 'vsr');
    await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: a.id }));
    await node.stop();
    await node.start();
    const c2 = await node.client('classic');
    const again = decodeStreamInfo(await c2.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('rc') }, 'classic')), 'classic');
    expect(again.id).toBe(a.id);
    expect(decodeStreamDetails(await c2.ok(CommandCode.GetStream, encodeStreamTarget({ stream: b.id })), 'classic')?.id).toBe(b.id);
  });
});
