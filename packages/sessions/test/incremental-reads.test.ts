import { describe, expect, it } from 'vitest';
import { AgdxClient, SESSIONS_TOPIC, type StreamLayout } from '@agdx/agents';
import { ManualLogClock, MemoryLog } from '@agdx/transport';
import type { ConversationId } from '@agdx/wire';
import { sessions, type Sessions } from '@agdx/sessions';
import { agent, clientOn, countingLog, exchange, expectSameAsFresh as sameReads, LANE, model } from './support/counting-log.js';

/** {@link sameReads}, and the change feed too. */
async function expectSameAsFresh(laser: AgdxClient, kept: Sessions, ids: readonly ConversationId[]): Promise<void> {
  await sameReads(laser, kept, ids);
  expect(await kept.changes()).toEqual(await sessions(laser, undefined, { snapshots: false }).changes());
}


describe('incremental session reads', () => {
  it('a second get reads nothing old, and then only what the log gained', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport);
    const factory = sessions(laser);
    const a = factory.create('a');
    await a.lifecycle.begin({ agent });
    for (let i = 0; i < 20; i++) await exchange(laser, a.conversation);

    counting.reset();
    expect((await factory.get(a.conversation))?.events).toBe(41n);
    expect(counting.read(LANE)).toBe(41);

    counting.reset();
    expect((await factory.get(a.conversation))?.events).toBe(41n);
    expect(counting.read(LANE)).toBe(0);

    await exchange(laser, a.conversation);
    counting.reset();
    const info = await factory.get(a.conversation);
    expect(info?.events).toBe(43n);
    expect(info?.modelCalls).toBe(21n);
    expect(counting.read(LANE)).toBe(2);
  });

  it('a change-feed poll with nothing new reads no record, however long the log', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport);
    const factory = sessions(laser);
    const a = factory.create('a');
    await a.lifecycle.begin({ agent });
    for (let i = 0; i < 50; i++) await exchange(laser, a.conversation);
    const latest = await factory.reads.latestChange();
    expect(latest).toBe(101n);
    counting.reset();
    expect((await factory.changes(latest)).rows).toEqual([]);
    expect(counting.read()).toBe(0);

    const b = factory.create('b');
    await b.lifecycle.begin({ agent });
    counting.reset();
    const page = await factory.changes(latest);
    expect(page.rows.map((r) => r.seq)).toEqual([102n]);
    expect(page.rows[0]?.sessions.map(String)).toEqual([b.conversation.toString()]);
    expect(counting.read()).toBe(1);
  });

  it('answers what a reader folding from scratch answers, through interleaved writes', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 3);
    const kept = sessions(laser);
    const parent = kept.create('parent');
    const child = kept.create('child');
    await parent.lifecycle.begin({ agent });
    await expectSameAsFresh(laser, kept, [parent.conversation, child.conversation]);
    await child.lifecycle.begin({ agent, parent: parent.conversation });
    await parent.lifecycle.snapshot({ step: 1 });
    await exchange(laser, child.conversation);
    // the kept reader sees the summaries first, then the timelines once asked for
    expect((await kept.get(child.conversation))?.modelCalls).toBe(1n);
    await expectSameAsFresh(laser, kept, [parent.conversation, child.conversation]);
    await parent.lifecycle.snapshot({ step: 2 });
    await child.lifecycle.end();
    await exchange(laser, parent.conversation);
    await parent.lifecycle.end();
    await expectSameAsFresh(laser, kept, [parent.conversation, child.conversation]);
    expect((await kept.state(parent.conversation)).document).toEqual({ step: 2 });
    expect((await kept.links(parent.conversation)).children.map(String)).toEqual([child.conversation.toString()]);
  });

  it('a lane topic deleted and recreated between reads is folded again from its start', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 2);
    const factory = sessions(laser);
    const old = factory.create('old');
    await old.lifecycle.begin({ agent });
    await exchange(laser, old.conversation);
    expect((await factory.get(old.conversation))?.events).toBe(3n);

    await counting.log.deleteTopic({ stream: 'demo', topic: SESSIONS_TOPIC });
    await counting.log.ensureTopic({ stream: 'demo', topic: SESSIONS_TOPIC }, { partitions: 2 });
    const renewed = factory.create('new');
    await renewed.lifecycle.begin({ agent });
    // the recreated topic holds one record at offset 0: the old offsets must not be continued
    expect(await factory.get(old.conversation)).toBeUndefined();
    expect((await factory.get(renewed.conversation))?.events).toBe(1n);
    await expectSameAsFresh(laser, factory, [old.conversation, renewed.conversation]);
  });

  it('two reads at once fold each record once', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport);
    const factory = sessions(laser);
    const a = factory.create('a');
    await a.lifecycle.begin({ agent });
    for (let i = 0; i < 5; i++) await exchange(laser, a.conversation);
    const [x, y, z] = await Promise.all([factory.get(a.conversation), factory.list(), factory.events(a.conversation)]);
    expect(x?.events).toBe(11n);
    expect(y.items[0]?.events).toBe(11n);
    expect(z.items).toHaveLength(11);
  });

  it('an aborted read leaves the fold where it stopped; the next read completes it', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 1);
    const a = sessions(laser).create('a');
    await a.lifecycle.begin({ agent });
    for (let i = 0; i < 1500; i++) await exchange(laser, a.conversation);
    // a transport that aborts the read in the middle: after the lane's second batch
    const controller = new AbortController();
    let laneReads = 0;
    const aborting = new Proxy(counting.transport, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (prop !== 'read') return value;
        return async (request: Parameters<typeof target.read>[0]) => {
          const records = await target.read(request);
          if (request.topic === SESSIONS_TOPIC && ++laneReads === 2) controller.abort(new Error('stop'));
          return records;
        };
      },
    });
    const reader = sessions(await clientOn(aborting, 1));
    counting.reset();
    await expect(reader.get(a.conversation, controller.signal)).rejects.toThrow('stop');
    // two batches read, the first one folded
    expect(counting.read([SESSIONS_TOPIC])).toBe(2000);
    counting.reset();
    const info = await reader.get(a.conversation);
    expect(info?.events).toBe(3001n);
    // the next read continues after the folded batch: the unfolded one is read again, nothing before it
    expect(counting.read([SESSIONS_TOPIC])).toBe(2001);
    expect(info).toEqual(await sessions(laser, undefined, { snapshots: false }).get(a.conversation));
  });
});

const LAYOUTS: Record<string, StreamLayout> = {
  shared: { kind: 'shared' },
  perAgentTopic: { kind: 'perAgentTopic', topics: new Map([[model.value, 'agent.model']]) },
  perAgentPartition: { kind: 'perAgentPartition', partitions: new Map([[model.value, 1]]) },
  singlePartition: { kind: 'singlePartition' },
};

describe.each(Object.keys(LAYOUTS))('kept and snapshotted session reads under the %s layout', (name) => {
  it('continue with the records the layout moved off the lane, and a new reader continues the snapshot', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 3, LAYOUTS[name]);
    const kept = sessions(laser);
    const a = kept.create('a');
    await a.lifecycle.begin({ agent });
    await exchange(laser, a.conversation);
    expect((await kept.get(a.conversation))?.modelCalls).toBe(1n);
    await exchange(laser, a.conversation);
    expect((await kept.get(a.conversation))?.modelCalls).toBe(2n);
    await kept.snapshot();
    await exchange(laser, a.conversation);
    await a.lifecycle.end();
    const next = sessions(laser);
    const info = await next.get(a.conversation);
    expect(info?.modelCalls).toBe(3n);
    expect(info?.status).toBe('completed');
    expect((await next.sources(a.conversation)).start.from).toBe('snapshot');
    expect((await next.events(a.conversation)).items.filter((e) => e.display === 'model.request')).toHaveLength(3);
    await expectSameAsFresh(laser, kept, [a.conversation]);
    await expectSameAsFresh(laser, next, [a.conversation]);
  });
});

describe('incremental session reads over an expiring lane', () => {
  it('report records that expired before the fold reached them as a gap, and number the change feed past them', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    await log.ensureStream('demo');
    await log.ensureTopic({ stream: 'demo', topic: SESSIONS_TOPIC }, { partitions: 1, messageExpiryMicros: 1_000_000n });
    const laser = AgdxClient.from(log, { stream: 'demo' });
    const factory = sessions(laser);
    const a = factory.create('a');
    await a.lifecycle.begin({ agent });
    await exchange(laser, a.conversation);
    clock.advance(2_000_000n);
    await exchange(laser, a.conversation);
    // a fresh reader: three records expired before its first read
    const first = await factory.sources(a.conversation);
    expect(first.gaps).toEqual([{ topic: SESSIONS_TOPIC, partition: 0, from: 0n, to: 3n, reason: 'expired_before_fold' }]);
    expect((await factory.changes()).floor).toBe(4n);
    // records written and expired between two reads of the kept reader
    await exchange(laser, a.conversation);
    clock.advance(2_000_000n);
    await exchange(laser, a.conversation);
    const second = await factory.sources(a.conversation);
    expect(second.gaps).toEqual([...first.gaps, { topic: SESSIONS_TOPIC, partition: 0, from: 5n, to: 7n, reason: 'expired_before_fold' }]);
    expect(second.sources.find((f) => f.topic === SESSIONS_TOPIC)).toMatchObject({ retainedFrom: 3n, folded: 9n, head: 9n });
    const info = await factory.get(a.conversation);
    expect(info?.modelCalls).toBe(2n);
    expect(info?.implicit).toBe(true);
  });
});
