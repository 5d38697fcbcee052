import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CancelledError, MemoryLog, watchAbort } from '@agdx/transport';

describe('watchAbort', () => {
  it('gives a signal one listener however many calls watch it, and calls each watcher once', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const unwatch = Array.from({ length: 30 }, (_, i) => watchAbort(controller.signal, () => calls.push(i)));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    unwatch[3]!();
    unwatch[3]!();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 3));
  });

  it('the same function watching twice is called twice; a watcher added after the abort runs on a microtask unless unwatched', async () => {
    const controller = new AbortController();
    let count = 0;
    const bump = (): void => void count++;
    watchAbort(controller.signal, bump);
    watchAbort(controller.signal, bump);
    controller.abort();
    expect(count).toBe(2);
    watchAbort(controller.signal, bump);
    watchAbort(controller.signal, bump)();
    expect(count).toBe(2);
    await Promise.resolve();
    expect(count).toBe(3);
    expect(watchAbort(undefined, bump)).toBeTypeOf('function');
  });

  it('MemoryLog waits sharing one signal all end with CancelledError and leave no listener behind', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    const controller = new AbortController();
    const waits = Array.from({ length: 25 }, () => log.waitFor({ stream: 's', topic: 't', partition: 0, offset: 0n, timeoutMs: 60_000, signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    for (const wait of waits) await expect(wait).rejects.toBeInstanceOf(CancelledError);
    const other = new AbortController();
    await Promise.all(Array.from({ length: 5 }, async () => {
      const wait = log.waitFor({ stream: 's', topic: 't', partition: 0, offset: 0n, timeoutMs: 60_000, signal: other.signal });
      await log.append({ stream: 's', topic: 't', records: [{ payload: Uint8Array.of(1) }] });
      expect(await wait).toBe(true);
    }));
    // The signal keeps its one listener (it fans out to nobody now); nothing per wait is left.
    expect(getEventListeners(other.signal, 'abort').length).toBeLessThanOrEqual(1);
  });
});
