import { describe, expect, it } from 'vitest';
import { MemoryLog, type GroupMember } from '@agdx/transport';

const enc = new TextEncoder();
const dec = new TextDecoder();

describe('MemoryLog under many concurrent agents', () => {
  it('producers and a consumer group running at once deliver every record exactly once', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    const at = { stream: 's', topic: 't' };
    await log.ensureTopic(at, { partitions: 4 });
    const producers = 10;
    const batches = 40;
    const perBatch = 5;
    const total = producers * batches * perBatch;
    const members: GroupMember[] = [];
    for (let i = 0; i < 3; i++) members.push(await log.connect().joinGroup({ ...at, group: 'workers' }));

    const seen: string[] = [];
    let done = false;
    const consume = async (member: GroupMember): Promise<void> => {
      while (!done) {
        const { partition, records } = await member.poll({ maxCount: 7 });
        if (partition === undefined) {
          await member.waitFor(50);
          continue;
        }
        for (const record of records) seen.push(dec.decode(record.payload));
        await member.commit(partition, records[records.length - 1]!.offset);
        if (seen.length >= total) done = true;
      }
    };
    const produce = async (p: number): Promise<void> => {
      const writer = log.connect();
      for (let b = 0; b < batches; b++) {
        const routing = b % 3 === 0 ? { key: `producer-${p}` } : b % 3 === 1 ? { balanced: true as const } : { partition: b % 4 };
        await writer.append({
          ...at,
          routing,
          records: Array.from({ length: perBatch }, (_, i) => ({ payload: enc.encode(`${p}/${b}/${i}`) })),
        });
        if (b % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    const consumers = members.map(consume);
    await Promise.all(Array.from({ length: producers }, (_, p) => produce(p)));
    const deadline = Date.now() + 10_000;
    while (seen.length < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    done = true;
    await Promise.all(consumers);

    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    const described = await log.describeTopic(at);
    expect(described.partitions.reduce((sum, p) => sum + p.nextOffset, 0n)).toBe(BigInt(total));
    // Each batch stayed contiguous within its partition.
    for (const { partition } of described.partitions) {
      const records = await log.read({ ...at, partition, offset: 0n, maxCount: total });
      for (let i = 0; i < records.length; i += perBatch) {
        const [p, b] = dec.decode(records[i]!.payload).split('/');
        for (let k = 0; k < perBatch; k++) expect(dec.decode(records[i + k]!.payload)).toBe(`${p}/${b}/${k}`);
      }
    }
  });
});
