import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CommandCode,
  decodeConsumerGroupAssignment,
  decodeConsumerGroupDetails,
  decodePollMessagesResponse,
  encodeCreateConsumerGroupRequest,
  encodeGroupTarget,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic, pollFrom, textsOf } from './helpers/ops.js';

let server: DevServer;
const enc = new TextEncoder();

beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0, rebalancingTimeoutMs: 60_000 });
});
afterAll(async () => {
  await server.close();
});

async function login(protocol: 'vsr' | 'classic'): Promise<RawClient> {
  const c = await RawClient.connect(server.port, protocol);
  await c.login();
  return c;
}

describe('one log, two generations', () => {
  it('serves records written with either protocol to readers of either, checksums valid, ids kept or minted', async () => {
    const vsr = await login('vsr');
    const classic = await login('classic');
    await createTopic(vsr, 'cross', 't', 1);
    const explicitId = 0x1234_5678_9abc_def0_1122_3344_5566_7788n;
    await vsr.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: 'cross', topic: 't', partitioning: partitioning.balanced(), messages: [{ id: explicitId, payload: enc.encode('from-vsr') }] }, 'vsr'));
    await classic.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: 'cross', topic: 't', partitioning: partitioning.balanced(), messages: [{ payload: enc.encode('from-classic-1') }, { id: 42n, payload: enc.encode('from-classic-2') }] }, 'classic'));
    const viaVsr = await pollFrom(vsr, 'cross', 't', 0, 0n);
    const viaClassic = await pollFrom(classic, 'cross', 't', 0, 0n);
    for (const r of [viaVsr, viaClassic]) {
      expect(textsOf(r)).toEqual(['from-vsr', 'from-classic-1', 'from-classic-2']);
      expect(r.messages.map((m) => m.offset)).toEqual([0n, 1n, 2n]);
      expect(r.messages[0]?.id).toBe(explicitId);
      expect(r.messages[1]?.id).not.toBe(0n);
      expect(r.messages[2]?.id).toBe(42n);
    }
    // A UUID v4 in the numeric layout: version nibble 4, variant bits 10.
    const minted = viaVsr.messages[1]?.id ?? 0n;
    expect((minted >> 76n) & 0xfn).toBe(4n);
    expect((minted >> 62n) & 0x3n).toBe(2n);
    expect(viaVsr.messages.map((m) => m.timestamp)).toEqual(viaClassic.messages.map((m) => m.timestamp));
    vsr.close();
    classic.close();
  });
});

describe('cooperative rebalance on join (VSR)', () => {
  it('hands a partition to a newcomer only after the old owner committed what it was given', async () => {
    const a = await login('vsr');
    await createTopic(a, 'coop', 't', 2);
    for (let p = 0; p < 2; p++) {
      await a.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: 'coop', topic: 't', partitioning: partitioning.partitionId(p), messages: [{ payload: enc.encode(`p${p}`) }] }, 'vsr'));
    }
    const target = encodeGroupTarget({ stream: 'coop', topic: 't', group: 'g' });
    await a.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'coop', topic: 't', name: 'g' }));
    await a.ok(CommandCode.JoinConsumerGroup, target);
    expect(decodeConsumerGroupAssignment(await a.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([0, 1]);
    const group = { kind: 'group' as const, id: 'g' };
    // A takes partition 1's record without committing it.
    const polled = decodePollMessagesResponse(
      await a.ok(CommandCode.PollMessages, encodePollMessagesRequest({ consumer: group, stream: 'coop', topic: 't', partitionId: 1, strategy: { kind: 'next' }, count: 10, autoCommit: false })),
      'vsr',
    );
    expect(polled.messages).toHaveLength(1);

    const b = await login('vsr');
    await b.ok(CommandCode.JoinConsumerGroup, target);
    // Partition 1 is promised to B but stays with A until A commits: nobody may poll it meanwhile.
    expect(decodeConsumerGroupAssignment(await b.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([]);
    expect(decodeConsumerGroupAssignment(await a.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([0]);
    const before = decodeConsumerGroupDetails(await a.ok(CommandCode.GetConsumerGroup, target));
    expect(before?.members.map((m) => m.partitions)).toEqual([[0, 1], []]);
    await a.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: group, stream: 'coop', topic: 't', partitionId: 1, offset: 0n }, 'vsr'));
    expect(decodeConsumerGroupAssignment(await b.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([1]);
    expect(decodeConsumerGroupAssignment(await a.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([0]);
    a.close();
    b.close();
  });
});

describe('group hand-over timeout and the wall clock', () => {
  it('hands a partition over once the timeout passed on the monotonic clock, even after the wall clock was stepped back', async () => {
    const local = await startDevServer({ port: 0, rebalancingTimeoutMs: 60_000 });
    try {
      const connect = async (): Promise<RawClient> => {
        const c = await RawClient.connect(local.port, 'vsr');
        await c.login();
        return c;
      };
      const a = await connect();
      await createTopic(a, 'step', 't', 2);
      await a.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: 'step', topic: 't', partitioning: partitioning.partitionId(1), messages: [{ payload: enc.encode('p1') }] }, 'vsr'));
      const target = encodeGroupTarget({ stream: 'step', topic: 't', group: 'g' });
      await a.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'step', topic: 't', name: 'g' }));
      await a.ok(CommandCode.JoinConsumerGroup, target);
      await a.ok(CommandCode.SyncConsumerGroup, target);
      // A takes partition 1's record and never commits it: only the timeout can move the partition.
      await a.ok(CommandCode.PollMessages, encodePollMessagesRequest({ consumer: { kind: 'group', id: 'g' }, stream: 'step', topic: 't', partitionId: 1, strategy: { kind: 'next' }, count: 10, autoCommit: false }));
      const b = await connect();
      await b.ok(CommandCode.JoinConsumerGroup, target);
      expect(decodeConsumerGroupAssignment(await b.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([]);
      // The system clock is stepped back an hour (the broker's timestamps stand still until it
      // catches up); the hand-over timeout must still run out after its 60 s.
      const realNow = Date.now.bind(Date);
      vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
      try {
        local.advanceTime(61_000_000n);
        expect(decodeConsumerGroupAssignment(await b.ok(CommandCode.SyncConsumerGroup, target)).partitions).toEqual([1]);
      } finally {
        vi.restoreAllMocks();
      }
      a.close();
      b.close();
    } finally {
      await local.close();
    }
  });
});

describe('heartbeat', () => {
  it('releases a silent group member (VSR eviction StaleClient, classic close) and keeps silent non-members', async () => {
    const local = await startDevServer({ port: 0, heartbeatIntervalMs: 200 });
    try {
      const connect = async (protocol: 'vsr' | 'classic'): Promise<RawClient> => {
        const c = await RawClient.connect(local.port, protocol);
        await c.login();
        return c;
      };
      const owner = await connect('vsr');
      await createTopic(owner, 'hb', 't', 2);
      await owner.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'hb', topic: 't', name: 'g' }));
      const target = encodeGroupTarget({ stream: 'hb', topic: 't', group: 'g' });
      const vsrMember = await connect('vsr');
      await vsrMember.ok(CommandCode.JoinConsumerGroup, target);
      const classicMember = await connect('classic');
      await classicMember.ok(CommandCode.JoinConsumerGroup, target);
      const idle = await connect('classic');
      const frame = await vsrMember.nextFrame(3000);
      expect(typeof frame).not.toBe('string');
      expect(() => vsrMember.vsr.handleFrame(frame as Uint8Array)).toThrow(/StaleClient/);
      expect(await vsrMember.waitClosed(3000)).toBe(true);
      expect(await classicMember.waitClosed(3000)).toBe(true);
      expect(idle.closed).toBe(false);
      // The owner was silent too but is no member; it still works, and the group is empty again.
      expect(decodeConsumerGroupDetails(await owner.ok(CommandCode.GetConsumerGroup, target))?.members).toEqual([]);
      owner.close();
      idle.close();
    } finally {
      await local.close();
    }
  });
});
