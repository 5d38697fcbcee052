// Waits of one connection share one timer armed for the earliest deadline; these tests pin what
// users rely on: a timeout never fires early, each wait times out on its own deadline whatever the
// others do, and settling or aborting the earliest wait leaves the later ones running.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, ClosedError, MemoryLog } from '@agdx/transport';

const STREAM = 's';

async function log(): Promise<MemoryLog> {
  const memory = new MemoryLog();
  await memory.ensureStream(STREAM);
  await memory.ensureTopic({ stream: STREAM, topic: 't' }, { partitions: 3 });
  return memory;
}

function waitOn(memory: MemoryLog, partition: number, timeoutMs: number, signal?: AbortSignal): Promise<{ ready: boolean; afterMs: number }> {
  const start = performance.now();
  return memory.waitFor({ stream: STREAM, topic: 't', partition, offset: 0n, timeoutMs, ...(signal === undefined ? {} : { signal }) }).then((ready) => ({ ready, afterMs: performance.now() - start }));
}

describe('MemoryLog wait deadlines', () => {
  it('times out every wait on its own deadline, never early, in any order of arrival', async () => {
    const memory = await log();
    const timeouts = [120, 30, 80, 30, 10, 60];
    const results = await Promise.all(timeouts.map((ms, i) => waitOn(memory, i % 3, ms)));
    for (const [i, result] of results.entries()) {
      expect(result.ready).toBe(false);
      // performance.now() and the timer share a clock; allow for sub-millisecond rounding only.
      expect(result.afterMs).toBeGreaterThanOrEqual((timeouts[i] as number) - 1);
    }
    await memory.close();
  });

  it('keeps later deadlines running when the earliest wait is woken by an append', async () => {
    const memory = await log();
    const early = waitOn(memory, 0, 5_000);
    const later = waitOn(memory, 1, 40);
    await memory.append({ stream: STREAM, topic: 't', routing: { partition: 0 }, records: [{ payload: new Uint8Array([1]) }] });
    await expect(early).resolves.toMatchObject({ ready: true });
    const timedOut = await later;
    expect(timedOut.ready).toBe(false);
    expect(timedOut.afterMs).toBeGreaterThanOrEqual(39);
    await memory.close();
  });

  it('times out a later wait after the earliest one was aborted', async () => {
    const memory = await log();
    const abort = new AbortController();
    const aborted = waitOn(memory, 0, 10, abort.signal);
    const later = waitOn(memory, 1, 50);
    abort.abort();
    await expect(aborted).rejects.toBeInstanceOf(CancelledError);
    const result = await later;
    expect(result.ready).toBe(false);
    expect(result.afterMs).toBeGreaterThanOrEqual(49);
    await memory.close();
  });

  it('wakes only the waits of the appended partition among 200 with staggered deadlines', async () => {
    const memory = await log();
    const many = Array.from({ length: 200 }, (_, i) => waitOn(memory, i % 3, 20 + (i % 7)));
    await memory.append({ stream: STREAM, topic: 't', routing: { partition: 2 }, records: [{ payload: new Uint8Array([1]) }] });
    const results = await Promise.all(many);
    expect(results.filter((r) => r.ready).length).toBe(results.filter((_, i) => i % 3 === 2).length);
    await memory.close();
  });

  it('rejects every pending wait with ClosedError on close', async () => {
    const memory = await log();
    const waits = [waitOn(memory, 0, 30_000), waitOn(memory, 1, 1_000), waitOn(memory, 2, 20_000)];
    await memory.close();
    for (const wait of waits) await expect(wait).rejects.toBeInstanceOf(ClosedError);
  });
});

describe('MemoryLog wait timer where timers cannot be released', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  // Browsers, Deno and workers return a number from setTimeout: there is no unref, so an armed
  // timer left behind would hold a Deno process open until the wait's timeout.
  it('clears the shared timer once the last wait settles', async () => {
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const live = new Map<number, ReturnType<typeof setTimeout>>();
    let next = 1;
    vi.stubGlobal('setTimeout', (fn: () => void, ms?: number) => {
      const id = next++;
      live.set(id, realSet(() => { live.delete(id); fn(); }, ms));
      return id;
    });
    vi.stubGlobal('clearTimeout', (id: number | undefined) => {
      if (id === undefined) return;
      realClear(live.get(id));
      live.delete(id);
    });
    const memory = await log();
    const waiting = waitOn(memory, 0, 30_000);
    expect(live.size).toBe(1);
    await memory.append({ stream: STREAM, topic: 't', routing: { partition: 0 }, records: [{ payload: new Uint8Array([1]) }] });
    await expect(waiting).resolves.toMatchObject({ ready: true });
    expect(live.size).toBe(0);
    // A later wait arms a timer of its own again and still times out on its deadline.
    const later = await waitOn(memory, 1, 20);
    expect(later.ready).toBe(false);
    expect(later.afterMs).toBeGreaterThanOrEqual(19);
    await memory.close();
  });
});
