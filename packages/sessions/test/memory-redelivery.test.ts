import { describe, expect, it } from 'vitest';
import { AgentTopic } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { clientOn } from './support/counting-log.js';

/** Appends a copy of the newest `agent.memory` record of `partition`: what a producer's retried append leaves behind. */
async function redeliverNewest(log: MemoryLog, partition: number): Promise<void> {
  const [described] = (await log.describeTopic({ stream: 'demo', topic: AgentTopic.Memory })).partitions.filter((p) => p.partition === partition);
  const [record] = await log.read({ stream: 'demo', topic: AgentTopic.Memory, partition, offset: (described?.nextOffset ?? 1n) - 1n, maxCount: 1 });
  if (record === undefined) throw new Error('nothing to redeliver');
  await log.append({ stream: 'demo', topic: AgentTopic.Memory, records: [{ headers: record.headers, payload: record.payload }], routing: { partition } });
}

describe('memory under at-least-once redelivery', () => {
  it('a feedback record written twice adds its weight once; distinct feedback still adds up', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('redelivered').memory();
    const tea = await memory.remember('likes tea');
    await memory.remember('works nights');
    const partition = (await memory.recall().fetch())[0]?.position.partition as number;

    await memory.improve(tea, 2);
    await redeliverNewest(log, partition);
    // a second process (a fresh factory) folds the whole topic, duplicate included
    const fresh = sessions(laser).create('redelivered').memory();
    expect((await fresh.recall().fetch()).map((i) => [i.text(), i.weight])).toEqual([['likes tea', 2], ['works nights', 0]]);
    // the incremental fold of the first handle meets the duplicate in a later refresh
    expect((await memory.recall().fetch())[0]?.weight).toBe(2);

    await memory.improve(tea, 2);
    expect((await memory.recall().fetch())[0]?.weight).toBe(4);
    expect((await sessions(laser).create('redelivered').memory().recall().fetch())[0]?.weight).toBe(4);
  });

  it('a forgotten item leaves no feedback behind: later feedback on it is ignored and recent recall does not rank it', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('forgotten').memory();
    const gone = await memory.remember('old fact');
    const kept = await memory.remember('new fact');
    await memory.improve(gone, 5);
    await memory.forget(gone);
    await memory.improve(gone, 5);
    await memory.improve(kept, -1);
    const items = await sessions(laser).create('forgotten').memory().recall().fetch();
    expect(items.map((i) => [i.text(), i.weight])).toEqual([['new fact', -1]]);
  });

  it('a named slot keeps its feedback across a forget and a rewrite', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('named').memory();
    const slot = await memory.remember('v1', { key: 'pref' });
    await memory.remember('other');
    await memory.improve(slot, 3);
    await memory.forget(slot);
    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual(['other']);
    await memory.remember('v2', { key: 'pref' });
    await memory.remember('newest');
    expect((await memory.recall().fetch()).map((i) => [i.text(), i.weight])).toEqual([['v2', 3], ['newest', 0], ['other', 0]]);
  });
});
