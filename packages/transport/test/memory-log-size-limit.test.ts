import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { headerValue, ManualLogClock, MemoryLog, retainedRecordBytes } from '@agdx/transport';

// A full, synchronous collection, so "is this payload still held?" has a definite answer.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

const at = { stream: 's', topic: 't', partition: 0 } as const;

async function sizedLog(maxTopicBytes: bigint, messageExpiryMicros?: bigint): Promise<{ log: MemoryLog; clock: ManualLogClock }> {
  const clock = new ManualLogClock(1_000_000_000n);
  const log = new MemoryLog({ clock });
  await log.ensureStream('s');
  await log.ensureTopic(at, { partitions: 1, maxTopicBytes, messageExpiryMicros });
  return { log, clock };
}

async function keptOffsets(log: MemoryLog): Promise<bigint[]> {
  return (await log.read({ ...at, offset: 0n, maxCount: 1_000_000 })).map((r) => r.offset);
}

async function appendWeakly(log: MemoryLog, bytes: number): Promise<WeakRef<Uint8Array>> {
  const payload = new Uint8Array(bytes).fill(5);
  await log.append({ ...at, routing: { partition: 0 }, records: [{ payload }], payloadsImmutable: true });
  return new WeakRef(payload);
}

describe('MemoryLog topic size limit', () => {
  it('records dropped by expiry no longer count towards the limit', async () => {
    const record = retainedRecordBytes(10, 0);
    const { log, clock } = await sizedLog(BigInt(5 * record), 1_000_000n);
    for (let i = 0; i < 5; i++) await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: new Uint8Array(10) }] });
    clock.advance(2_000_000n);
    // The five expire at this append; had their bytes still counted, the new ones would be cut.
    for (let i = 0; i < 5; i++) await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: new Uint8Array(10) }] });
    expect(await keptOffsets(log)).toEqual([5n, 6n, 7n, 8n, 9n]);
    await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: new Uint8Array(10) }] });
    expect(await keptOffsets(log)).toEqual([6n, 7n, 8n, 9n, 10n]);
  });

  it('keeps exactly the share over many batches, payloads copied or kept, headers counted', async () => {
    const headers = new Map([['k', headerValue.uint32(7)]]);
    const record = retainedRecordBytes(32, 0);
    const withHeaders = record + 10 + 1 + 4; // one pair: framing, the key, a u32 value
    const { log } = await sizedLog(BigInt(300 * record));
    let next = 0;
    for (let b = 0; b < 50; b++) {
      const records = Array.from({ length: 100 }, () => ({ payload: new Uint8Array(32) }));
      await log.append({ ...at, routing: { partition: 0 }, records, payloadsImmutable: b % 2 === 0 });
      next += 100;
    }
    expect(await keptOffsets(log)).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(next - 300 + i)));
    // Ten records with headers push out ten plain ones and the bytes their headers add.
    await log.append({ ...at, routing: { partition: 0 }, records: Array.from({ length: 10 }, () => ({ headers, payload: new Uint8Array(32) })) });
    const extra = Math.ceil((10 * withHeaders - 10 * record) / record);
    const kept = await keptOffsets(log);
    expect(kept[0]).toBe(BigInt(next - 300 + 10 + extra));
    expect(kept.at(-1)).toBe(BigInt(next + 9));
  });

  it('releases a dropped payload at once', async () => {
    const { log } = await sizedLog(BigInt(retainedRecordBytes(1024 * 1024, 0)));
    const refs: WeakRef<Uint8Array>[] = [];
    for (let i = 0; i < 4; i++) refs.push(await appendWeakly(log, 1024 * 1024));
    expect(await keptOffsets(log)).toEqual([3n]);
    await tick();
    collect();
    expect(refs.map((ref) => ref.deref() === undefined)).toEqual([true, true, true, false]);
  });

  it('a topic without a limit keeps everything', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    const described = await log.ensureTopic(at, { partitions: 1 });
    expect(described.maxTopicBytes).toBeUndefined();
    for (let i = 0; i < 20; i++) await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: new Uint8Array(100_000) }] });
    expect(await keptOffsets(log)).toHaveLength(20);
  });
});
