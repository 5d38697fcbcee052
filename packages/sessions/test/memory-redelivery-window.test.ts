/**
 * Memory under at-least-once delivery, beyond a single retried append: a late copy of an older
 * write to a named slot, the identities the fold keeps to recognise copies (bounded by the
 * redelivery window), and consolidations that run at the same time.
 */
import { describe, expect, it } from 'vitest';
import { AgentTopic, type AgdxClient } from '@agdx/agents';
import { REDELIVERY_WINDOW, sessions, type MemoryItem, type SessionMemory } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { clientOn } from './support/counting-log.js';

/** Appends a copy of the `agent.memory` record at `position`, on its partition. */
async function redeliver(log: MemoryLog, position: { partition: number; offset: bigint }): Promise<void> {
  const [record] = await log.read({ stream: 'demo', topic: AgentTopic.Memory, partition: position.partition, offset: position.offset, maxCount: 1 });
  if (record === undefined) throw new Error('nothing to redeliver');
  await log.append({ stream: 'demo', topic: AgentTopic.Memory, records: [{ headers: record.headers, payload: record.payload }], routing: { partition: position.partition } });
}

/** The position of the newest `agent.memory` record of the partition. */
async function newest(log: MemoryLog, partition: number): Promise<{ partition: number; offset: bigint }> {
  const described = await log.describeTopic({ stream: 'demo', topic: AgentTopic.Memory });
  const next = described.partitions.find((p) => p.partition === partition)?.nextOffset ?? 0n;
  return { partition, offset: next - 1n };
}

const texts = (items: readonly MemoryItem[]): string[] => items.map((i) => i.text());

/** A fresh sessions factory's view of the memory: a fold of the whole topic. */
function freshMemory(laser: AgdxClient, name: string): SessionMemory {
  return sessions(laser).create(name).memory();
}

describe('memory redelivery window', () => {
  it('a late copy of an older write to a named slot does not replace the newer write, on the first pass or a replay', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('slot').memory();
    await memory.remember('prefers email', { key: 'contact' });
    const [first] = await memory.recall().fetch();
    const v1 = first?.position as { partition: number; offset: bigint };
    await memory.remember('prefers phone', { key: 'contact' });
    await memory.remember('other');
    expect(texts(await memory.recall().fetch())).toEqual(['other', 'prefers phone']);
    await redeliver(log, v1);
    expect(texts(await memory.recall().fetch())).toEqual(['other', 'prefers phone']);
    expect(texts(await freshMemory(laser, 'slot').recall().fetch())).toEqual(['other', 'prefers phone']);
    // a later, distinct write still replaces it, and a copy of a forget's target write stays out
    await memory.remember('prefers chat', { key: 'contact' });
    const v3 = await newest(log, v1.partition);
    await memory.forget('agent.session/contact');
    await redeliver(log, v3);
    expect(texts(await memory.recall().fetch())).toEqual(['other']);
    expect(texts(await freshMemory(laser, 'slot').recall().fetch())).toEqual(['other']);
  });

  it('the identities the fold holds stay within the window while many records are written, and copies inside it are still refused', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const memory = sessions(laser).create('many').memory();
    const kept = await memory.remember('kept');
    // each pair is an item and its forget: two records, two write identities and one forgotten id;
    // 12,000 records in all, more than the window
    const pairs = REDELIVERY_WINDOW / 2 + 1000;
    for (let i = 0; i < pairs; i++) await memory.forget(await memory.remember(`item ${i}`));
    await memory.improve(kept, 2);
    const feedback = await newest(log, 0);
    const index = await memory.index();
    expect(texts(await memory.recall().fetch())).toEqual(['kept']);
    // only the identities of the newest REDELIVERY_WINDOW records are held, not every one written
    expect(index.heldIdentities.writes).toBe(REDELIVERY_WINDOW);
    expect(index.heldIdentities.forgotten).toBe(REDELIVERY_WINDOW / 2);
    expect(index.heldIdentities.forgotten).toBeLessThan(pairs);
    // a copy of the newest feedback and of a recently forgotten item are refused
    await redeliver(log, feedback);
    await redeliver(log, { partition: 0, offset: feedback.offset - 2n });
    for (const reader of [memory, freshMemory(laser, 'many')]) {
      expect((await reader.recall().fetch()).map((i) => [i.text(), i.weight])).toEqual([['kept', 2]]);
    }
    expect(index.heldIdentities.writes).toBeLessThanOrEqual(REDELIVERY_WINDOW);
  });

  it('two consolidations of one memory at the same time write one summary', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('together').memory();
    for (const t of ['a', 'b', 'c', 'd', 'e']) await memory.remember(t);
    let calls = 0;
    const summarize = async (items: readonly MemoryItem[]): Promise<string> => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 0));
      return `summary of ${texts(items).join('')}`;
    };
    const [one, two] = await Promise.all([memory.consolidate(2, { summarize }), memory.consolidate(2, { summarize })]);
    expect(calls).toBe(1);
    expect(one).toEqual(two);
    expect(one).toMatchObject({ scanned: 5, kept: 2, forgotten: 3 });
    for (const reader of [memory, freshMemory(laser, 'together')]) {
      expect(texts(await reader.recall().fetch())).toEqual(['summary of abc', 'e', 'd']);
    }
    // a different request made at the same time runs after it, on what it left
    const [, three] = await Promise.all([memory.consolidate(3, { summarize }), memory.consolidate(1)]);
    expect(three).toMatchObject({ scanned: 3, kept: 1, forgotten: 2 });
  });

  it('a consolidation in another factory that pruned the same items first leaves this one writing nothing', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const mine = sessions(laser).create('apart').memory();
    for (const t of ['a', 'b', 'c', 'd']) await mine.remember(t);
    const theirs = sessions(laser).create('apart').memory();
    const report = await mine.consolidate(1, {
      // while this summarizer runs, another process consolidates the same memory to the end
      summarize: async (items) => {
        await theirs.consolidate(1, { summarize: (pruned) => `theirs: ${texts(pruned).join('')}` });
        return `mine: ${texts(items).join('')}`;
      },
    });
    expect(report).toEqual({ scanned: 4, kept: 1, forgotten: 0, superseded: true });
    expect(texts(await freshMemory(laser, 'apart').recall().fetch())).toEqual(['theirs: abc', 'd']);
  });

  it('two factories that pass the check together write the same summary id, which the fold keeps once', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const a = sessions(laser).create('same').memory();
    for (const t of ['a', 'b', 'c']) await a.remember(t);
    const b = sessions(laser).create('same').memory();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    const summarize = async (items: readonly MemoryItem[]): Promise<string> => {
      if (++waiting === 2) release();
      await gate;
      return `sum ${texts(items).join('')}`;
    };
    const [ra, rb] = await Promise.all([a.consolidate(1, { summarize }), b.consolidate(1, { summarize })]);
    const summaries = [ra.summary, rb.summary].filter((s) => s !== undefined);
    expect(new Set(summaries).size).toBe(1);
    expect(texts(await freshMemory(laser, 'same').recall().fetch())).toEqual(['sum ab', 'c']);
  });
});
