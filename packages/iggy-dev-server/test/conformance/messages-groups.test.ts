// Conformance: messages, consumer offsets and consumer groups, both generations. Rules from
// the Iggy sources: core/partitions poll_plan.rs (0.9 auto-commit upsert_offset_max), the 0.8.0
// poll handler (auto-commit overwrites), core/server responses.rs (offset fences),
// core/metadata stm/stream.rs (monotonic next_consumer_group_id).
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodeConsumerGroupAssignment,
  decodeConsumerGroupDetails,
  decodeConsumerGroupInfo,
  decodeConsumerGroupList,
  decodeConsumerOffsetInfo,
  encodeCreateConsumerGroupRequest,
  encodeDeleteConsumerOffsetRequest,
  encodeGetConsumerOffsetRequest,
  encodeGroupTarget,
  encodeStoreConsumerOffsetRequest,
  encodeTopicTarget,
} from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { suiteServer, PROTOCOLS, createTopic, poll, send, texts } from './harness.js';
import type { RawClient } from './harness.js';

const node = suiteServer('memory');

async function storedOffset(c: RawClient, stream: string, topic: string, consumer: { kind: 'consumer' | 'group'; id: number | string }): Promise<bigint | undefined> {
  return decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0 })))?.storedOffset;
}

/** Stores `offset` for a single consumer on partition 0. */
async function store(c: RawClient, stream: string, topic: string, offset: bigint): Promise<void> {
  await c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: { kind: 'consumer', id: 7 }, stream, topic, partitionId: 0, offset }, c.protocol));
}

describe('auto-commit keeps each generation’s rule', () => {
  const expected: Record<IggyProtocol, bigint> = {
    // Iggy 0.9: upsert_offset_max, an auto-commit never moves a stored offset back.
    vsr: 6n,
    // Iggy 0.8: the auto-commit stores the last polled offset, whatever was stored.
    classic: 1n,
  };
  it.each(PROTOCOLS)('%s: offset 6 stored, an auto-commit poll of Offset(0) for 2 messages', async (protocol) => {
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 1);
    await send(c, stream, topic, 0, ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    await store(c, stream, topic, 6n);
    const polled = await poll(c, { stream, topic, partitionId: 0 }, { kind: 'offset', value: 0n }, { count: 2, autoCommit: true, consumer: { kind: 'consumer', id: 7 } });
    expect(texts(polled)).toEqual(['0', '1']);
    expect(await storedOffset(c, stream, topic, { kind: 'consumer', id: 7 })).toBe(expected[protocol]);
    // Both raise it when the poll reads past it, and an explicit store may still lower it.
    await poll(c, { stream, topic, partitionId: 0 }, { kind: 'offset', value: 7n }, { count: 2, autoCommit: true, consumer: { kind: 'consumer', id: 7 } });
    expect(await storedOffset(c, stream, topic, { kind: 'consumer', id: 7 })).toBe(8n);
    await store(c, stream, topic, 2n);
    expect(await storedOffset(c, stream, topic, { kind: 'consumer', id: 7 })).toBe(2n);
    const next = await poll(c, { stream, topic, partitionId: 0 }, { kind: 'next' }, { count: 1, autoCommit: true, consumer: { kind: 'consumer', id: 7 } });
    expect(texts(next)).toEqual(['3']);
  });

  it.each(PROTOCOLS)('%s: the same rule for a consumer group’s offset', async (protocol) => {
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 1);
    await send(c, stream, topic, 0, ['0', '1', '2', '3', '4', '5', '6', '7']);
    await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'g' }));
    await c.ok(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream, topic, group: 'g' }));
    const group = { kind: 'group' as const, id: 'g' };
    await c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: group, stream, topic, partitionId: 0, offset: 5n }, protocol));
    await poll(c, { stream, topic, partitionId: 0 }, { kind: 'offset', value: 0n }, { count: 2, autoCommit: true, consumer: group });
    expect(await storedOffset(c, stream, topic, group)).toBe(protocol === 'vsr' ? 5n : 1n);
  });
});

describe.each(PROTOCOLS)('messages and offsets (%s)', (protocol) => {
  it('polling strategies: offset, first, last, next, timestamp', async () => {
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 1);
    // Two batches: messages of one batch share the broker timestamp of their append.
    await send(c, stream, topic, 0, ['a', 'b']);
    await send(c, stream, topic, 0, ['c', 'd']);
    const t = { stream, topic, partitionId: 0 };
    expect(texts(await poll(c, t, { kind: 'offset', value: 2n }))).toEqual(['c', 'd']);
    expect(texts(await poll(c, t, { kind: 'first' }, { count: 1 }))).toEqual(['a']);
    expect(texts(await poll(c, t, { kind: 'last' }, { count: 2 }))).toEqual(['c', 'd']);
    expect(texts(await poll(c, t, { kind: 'next' }, { count: 3 }))).toEqual(['a', 'b', 'c']);
    const all = await poll(c, t, { kind: 'first' });
    const ts = all.messages[2]?.timestamp as bigint;
    expect(texts(await poll(c, t, { kind: 'timestamp', value: ts }))).toEqual(['c', 'd']);
    expect((await poll(c, t, { kind: 'offset', value: 99n })).messages).toEqual([]);
  });

  it('offsets: store, get, delete; above the current offset is 4100, nothing stored to delete is 3021', async () => {
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 1);
    const consumer = { kind: 'consumer' as const, id: 'reader' };
    expect(await c.refused(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0, offset: 0n }, protocol))).toBe(4100);
    await send(c, stream, topic, 0, ['a', 'b', 'c']);
    expect(await c.refused(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0, offset: 3n }, protocol))).toBe(4100);
    await c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0, offset: 1n }, protocol));
    expect(decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0 })))).toEqual({ partitionId: 0, currentOffset: 2n, storedOffset: 1n });
    await c.ok(CommandCode.DeleteConsumerOffset, encodeDeleteConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0 }, protocol));
    expect(decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0 })))).toBeUndefined();
    expect(await c.refused(CommandCode.DeleteConsumerOffset, encodeDeleteConsumerOffsetRequest({ consumer, stream, topic, partitionId: 0 }, protocol))).toBe(3021);
  });

  it('groups: create, get, list, join, leave, delete; ids are never reused within a topic', async () => {
    const c = await node.client(protocol);
    const { stream, topic } = await createTopic(c, 2);
    const a = decodeConsumerGroupInfo(await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'a' })));
    const b = decodeConsumerGroupInfo(await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'b' })));
    expect([a.partitionsCount, a.membersCount]).toEqual([2, 0]);
    expect(await c.refused(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'a' }))).toBe(5004);
    await c.ok(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream, topic, group: 'a' }));
    const details = decodeConsumerGroupDetails(await c.ok(CommandCode.GetConsumerGroup, encodeGroupTarget({ stream, topic, group: a.id })));
    expect(details?.members).toHaveLength(1);
    expect([...(details?.members[0]?.partitions ?? [])].sort()).toEqual([0, 1]);
    if (protocol === 'vsr') {
      const assignment = decodeConsumerGroupAssignment(await c.ok(CommandCode.SyncConsumerGroup, encodeGroupTarget({ stream, topic, group: 'a' })));
      expect([...assignment.partitions].sort()).toEqual([0, 1]);
    }
    await c.ok(CommandCode.LeaveConsumerGroup, encodeGroupTarget({ stream, topic, group: 'a' }));
    expect(await c.refused(CommandCode.LeaveConsumerGroup, encodeGroupTarget({ stream, topic, group: 'a' }))).toBe(5006);
    expect(decodeConsumerGroupList(await c.ok(CommandCode.GetConsumerGroups, encodeTopicTarget({ stream, topic }))).map((g) => g.name)).toEqual(['a', 'b']);
    await c.ok(CommandCode.DeleteConsumerGroup, encodeGroupTarget({ stream, topic, group: b.id }));
    await c.ok(CommandCode.DeleteConsumerGroup, encodeGroupTarget({ stream, topic, group: a.id }));
    const c2 = decodeConsumerGroupInfo(await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'c' })));
    expect(c2.id).toBe(b.id + 1);
    expect(await c.refused(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream, topic, group: 'a' }))).toBe(5000);
  });
});

describe('group ids on disk', () => {
  const disk = suiteServer('disk');

  it('stay monotonic across a restart, even when the newest group was deleted', async () => {
    const c = await disk.client('vsr');
    const { stream, topic } = await createTopic(c, 1);
    await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'a' }));
    const b = decodeConsumerGroupInfo(await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'b' })));
    await c.ok(CommandCode.DeleteConsumerGroup, encodeGroupTarget({ stream, topic, group: 'b' }));
    await disk.stop();
    await disk.start();
    const c2 = await disk.client('classic');
    const next = decodeConsumerGroupInfo(await c2.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic, name: 'c' })));
    expect(next.id).toBe(b.id + 1);
  });
});
