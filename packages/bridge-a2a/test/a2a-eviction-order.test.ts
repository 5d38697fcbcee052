import { describe, expect, it } from 'vitest';
import { OWN_CANCEL_MEMORY, OwnCancels } from '../src/own-cancels.js';
import { TaskHits } from '../src/task-hits.js';

const hit = (offset: number): { offset: bigint; micros: bigint } => ({ offset: BigInt(offset), micros: BigInt(offset) });

describe('what the bounded task memories forget first', () => {
  it('the reply index drops the task least recently touched or kept, one per task beyond its cap', () => {
    const hits = new TaskHits(3);
    for (const [i, task] of ['a', 'b', 'c'].entries()) expect(hits.keep(task, 'p', hit(i), true, false)).toBe(true);
    // touching a and keeping another reply of b leaves c the least recent
    expect(hits.touch('a')).toHaveLength(1);
    hits.keep('b', 'q', hit(3), true, false);
    hits.keep('d', 'p', hit(4), true, false);
    expect([hits.size, hits.touch('c'), hits.mightHaveDropped('c')]).toEqual([3, undefined, true]);
    // now a is the oldest (b was kept, d is new, and touch('c') found nothing)
    hits.keep('e', 'p', hit(5), true, false);
    expect(hits.touch('a')).toBeUndefined();
    expect([hits.touch('b')?.length, hits.touch('d')?.length, hits.touch('e')?.length]).toEqual([2, 1, 1]);
    // a dropped task is never kept again: its earlier replies may be gone
    expect(hits.keep('c', 'p', hit(6), true, false)).toBe(false);
    expect(hits.size).toBe(3);
  });

  it('over many tasks keeps exactly the newest, in order, at its cap', () => {
    const limit = 1000;
    const hits = new TaskHits(limit);
    for (let i = 0; i < 5 * limit; i++) {
      hits.keep(`t${i}`, 'p', hit(i), true, false);
      // every tenth task touches one kept 500 tasks ago, which keeps it
      if (i % 10 === 0 && i >= 500) expect(hits.touch(`t${i - 500}`)).toBeDefined();
    }
    expect(hits.size).toBe(limit);
    const kept = Array.from({ length: 5 * limit }, (_, i) => hits.touch(`t${i}`) !== undefined);
    // the newest 1000 distinct touches: the last tasks, plus the touched ones in their window
    const recent = new Map<string, number>();
    for (let i = 0; i < 5 * limit; i++) {
      recent.delete(`t${i}`);
      recent.set(`t${i}`, i);
      if (recent.size > limit) recent.delete(recent.keys().next().value as string);
      if (i % 10 === 0 && i >= 500) {
        recent.delete(`t${i - 500}`);
        recent.set(`t${i - 500}`, i);
      }
    }
    expect(kept.map((k, i) => (k ? i : -1)).filter((i) => i >= 0)).toEqual([...recent.keys()].map((k) => Number(k.slice(1))).sort((x, y) => x - y));
  });

  it("a bridge's own cancels: the oldest is forgotten beyond the memory, and a cancel remembered again is the newest", () => {
    const cancels = new OwnCancels();
    for (let i = 0; i < OWN_CANCEL_MEMORY; i++) cancels.remember(`task-${i}`, `at-${i}`);
    cancels.remember('task-0', 'at-again');
    cancels.remember('task-new', 'at-new');
    expect([cancels.get('task-0'), cancels.get('task-1'), cancels.get('task-2'), cancels.get('task-new')]).toEqual(['at-again', undefined, 'at-2', 'at-new']);
    for (let i = 0; i < OWN_CANCEL_MEMORY - 1; i++) cancels.remember(`later-${i}`, `l-${i}`);
    expect([cancels.get('task-0'), cancels.get('task-new'), cancels.get(`task-${OWN_CANCEL_MEMORY - 1}`)]).toEqual([undefined, 'at-new', undefined]);
  });
});
