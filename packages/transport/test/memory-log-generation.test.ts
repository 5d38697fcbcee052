import { describe, expect, it } from 'vitest';
import { ManualLogClock, MemoryLog, TransportError } from '@agdx/transport';

const address = { stream: 's', topic: 't' } as const;

describe('MemoryLog topic generations and deleteTopic', () => {
  it('a topic recreated under the same name has a new creation time and starts empty', async () => {
    // a clock that stands still: the generation must still change
    const log = new MemoryLog({ clock: new ManualLogClock(1_000n) });
    await log.ensureStream('s');
    const first = await log.ensureTopic(address, { partitions: 2 });
    expect(first.createdAtMicros).toBe(1_000n);
    expect((await log.ensureTopic(address, { partitions: 2 })).createdAtMicros).toBe(1_000n);
    await log.append({ ...address, routing: { partition: 0 }, records: [{ payload: new Uint8Array([1]) }] });
    await log.storeOffset({ ...address, partition: 0, offset: 0n, consumer: { kind: 'consumer', name: 'c' } });
    await log.deleteTopic(address);
    await expect(log.describeTopic(address)).rejects.toSatisfy((e: unknown) => TransportError.is(e) && e.kind === 'not-found');
    const second = await log.ensureTopic(address, { partitions: 2 });
    expect(second.createdAtMicros).toBe(1_001n);
    expect(second.partitions.map((p) => p.nextOffset)).toEqual([0n, 0n]);
    expect(await log.getOffset({ ...address, partition: 0, consumer: { kind: 'consumer', name: 'c' } })).toBeUndefined();
    // another connection to the same data sees the same generation
    expect((await log.connect().describeTopic(address)).createdAtMicros).toBe(1_001n);
  });

  it('deleting a missing topic is a typed not-found error; a waiting poll wakes up empty', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await expect(log.deleteTopic(address)).rejects.toSatisfy((e: unknown) => TransportError.is(e) && e.kind === 'not-found');
    await log.ensureTopic(address, { partitions: 1 });
    const waiting = log.waitFor({ ...address, partition: 0, offset: 0n, timeoutMs: 60_000 });
    await log.deleteTopic(address);
    await expect(waiting).resolves.toBe(false);
  });

  it('a member of a deleted topic gets not-found, as over Iggy, instead of polling and committing into the old one', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic(address, { partitions: 1 });
    await log.append({ ...address, routing: { partition: 0 }, records: [{ payload: new Uint8Array([1]) }] });
    const member = await log.joinGroup({ ...address, group: 'g' });
    await member.commit(0, 0n);
    const waiting = member.waitFor(60_000);
    await log.deleteTopic(address);
    await expect(waiting).resolves.toBe(false);
    const notFound = (e: unknown): boolean => TransportError.is(e) && e.kind === 'not-found';
    await expect(member.poll()).rejects.toSatisfy(notFound);
    await expect(member.commit(0, 0n)).rejects.toSatisfy(notFound);
    await expect(member.waitFor(10)).rejects.toSatisfy(notFound);
    await expect(member.assignment()).rejects.toSatisfy(notFound);
    // The recreated topic is another one: the old member's commit never lands in it.
    await log.ensureTopic(address, { partitions: 1 });
    await log.append({ ...address, routing: { partition: 0 }, records: [{ payload: new Uint8Array([2]) }] });
    await expect(member.commit(0, 0n)).rejects.toSatisfy(notFound);
    await expect(log.getOffset({ ...address, partition: 0, consumer: { kind: 'group', name: 'g' } })).rejects.toSatisfy(notFound);
    await member.leave();
  });
});
