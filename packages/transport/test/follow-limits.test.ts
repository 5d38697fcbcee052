import { describe, expect, it } from 'vitest';
import { follow, followGroup, InvalidArgumentError, MemoryLog, type LogTransport, type ReadRequest } from '@agdx/transport';

/** `log` through a transport that refuses any read past `limit`: a follower that spins hits it instead of hanging the test. */
function boundedReads(log: MemoryLog, limit: number): { transport: LogTransport; reads: () => number } {
  let reads = 0;
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          if (++reads > limit) throw new Error(`more than ${limit} reads`);
          return target.read(request);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return { transport, reads: () => reads };
}

describe('follow and followGroup refuse a batch size that could never move them', () => {
  it('follow with maxCount 0 is an InvalidArgumentError before any read, not a loop of empty reads', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    await log.append({ stream: 's', topic: 't', records: [{ payload: new Uint8Array([1]) }], routing: { partition: 0 } });
    const { transport, reads } = boundedReads(log, 50);
    const iterator = follow(transport, { stream: 's', topic: 't', partition: 0, maxCount: 0, waitMs: 10 });
    await expect(iterator.next()).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(reads()).toBe(0);
    for (const bad of [-1, 1.5, 1_000_001, Number.NaN]) {
      await expect(follow(transport, { stream: 's', topic: 't', partition: 0, maxCount: bad }).next()).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    // a batch of one still reads every record in order
    const one = follow(transport, { stream: 's', topic: 't', partition: 0, maxCount: 1 });
    expect((await one.next()).value?.offset).toBe(0n);
    await one.return(undefined);
  });

  it('followGroup with maxCount 0 is an InvalidArgumentError before any poll', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    await log.append({ stream: 's', topic: 't', records: [{ payload: new Uint8Array([1]) }], routing: { partition: 0 } });
    const member = await log.joinGroup({ stream: 's', topic: 't', group: 'g' });
    let polls = 0;
    const counted = new Proxy(member, {
      get(target, prop) {
        if (prop === 'poll') {
          return async (...args: Parameters<typeof member.poll>) => {
            if (++polls > 50) throw new Error('more than 50 polls');
            return target.poll(...args);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    await expect(followGroup(counted, { maxCount: 0, waitMs: 10 }).next()).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(polls).toBe(0);
    const ok = followGroup(counted, { maxCount: 1, waitMs: 10 });
    expect((await ok.next()).value?.records.length).toBe(1);
    await ok.return(undefined);
    await member.leave();
  });
});
