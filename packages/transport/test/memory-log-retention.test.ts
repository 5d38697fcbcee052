import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ManualLogClock, MemoryLog } from '@agdx/transport';

// A full, synchronous collection, so "is this payload still held?" has a definite answer.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Lets the current job end: a WeakRef keeps its target alive until then. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Appends one payload, kept by reference (payloadsImmutable) so the log's hold on this very array
 * is observable, and returns only a weak reference to it. Made in a function of its own, so no
 * stack slot of the test keeps the array alive.
 */
async function appendWeakly(log: MemoryLog, at: { stream: string; topic: string }, bytes: number, fill: number): Promise<WeakRef<Uint8Array>> {
  const payload = new Uint8Array(bytes).fill(fill);
  await log.append({ ...at, routing: { partition: 0 }, records: [{ payload }], payloadsImmutable: true });
  return new WeakRef(payload);
}

describe('MemoryLog retention', () => {
  it('releases an expired payload at once, not after a thousand more records expire', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    await log.ensureStream('s');
    const at = { stream: 's', topic: 't', partition: 0 } as const;
    await log.ensureTopic(at, { partitions: 1, messageExpiryMicros: 1_000_000n });
    const refs: WeakRef<Uint8Array>[] = [];
    for (let i = 0; i < 4; i++) refs.push(await appendWeakly(log, at, 1024 * 1024, i + 1));
    clock.advance(2_000_000n);
    await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: Uint8Array.of(9) }] });
    expect((await log.read({ ...at, offset: 0n })).map((r) => r.offset)).toEqual([4n]);
    await tick();
    collect();
    expect(refs.map((ref) => ref.deref() === undefined)).toEqual([true, true, true, true]);
    // Offsets, reads from a timestamp and the next appends are as before.
    expect((await log.readFromTimestamp({ ...at, timestampMicros: 0n })).map((r) => r.offset)).toEqual([4n]);
    expect((await log.describeTopic(at)).partitions[0]?.nextOffset).toBe(5n);
  });

  it('keeps what has not expired', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    await log.ensureStream('s');
    const at = { stream: 's', topic: 't', partition: 0 } as const;
    await log.ensureTopic(at, { partitions: 1, messageExpiryMicros: 1_000_000n });
    const ref = await appendWeakly(log, at, 1024, 7);
    clock.advance(500_000n);
    expect(await log.read({ ...at, offset: 0n })).toHaveLength(1);
    await tick();
    collect();
    expect(ref.deref()).toBeDefined();
  });

  it("a record that never expires does not keep another topic's expired bytes alive", async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    await log.ensureStream('s');
    const kept = { stream: 's', topic: 'registry' } as const;
    const brief = { stream: 's', topic: 'events' } as const;
    await log.ensureTopic(kept, { partitions: 1 });
    await log.ensureTopic(brief, { partitions: 1, messageExpiryMicros: 1_000_000n });
    // One small record that stays, then more small, copied records of an expiring topic than
    // one 64 KiB slab holds.
    await log.append({ ...kept, routing: { partition: 0 }, records: [{ payload: Uint8Array.of(1) }] });
    const slab = await firstSlabOf(log, brief);
    clock.advance(2_000_000n);
    expect(await log.read({ ...brief, partition: 0, offset: 0n })).toEqual([]);
    await tick();
    collect();
    expect(slab.deref()).toBeUndefined();
    expect((await log.read({ ...kept, partition: 0, offset: 0n }))[0]?.payload).toEqual(Uint8Array.of(1));
  });
});

/** Fills more than one slab of `at` with 4 KiB records; a weak reference to the first one's buffer. */
async function firstSlabOf(log: MemoryLog, at: { stream: string; topic: string }): Promise<WeakRef<ArrayBufferLike>> {
  const payload = new Uint8Array(4096).fill(3);
  for (let i = 0; i < 20; i++) await log.append({ ...at, routing: { partition: 0 }, records: [{ payload }] });
  const [first] = await log.read({ ...at, partition: 0, offset: 0n, maxCount: 1 });
  return new WeakRef((first as { payload: Uint8Array }).payload.buffer);
}
