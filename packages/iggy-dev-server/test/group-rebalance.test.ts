import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodeConsumerGroupDetails,
  encodeCreateConsumerGroupRequest,
  encodeGroupTarget,
  initChecksums,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic } from './helpers/ops.js';

let server: DevServer;
beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('consumer group assignment', () => {
  it.each([1, 2, 3, 5, 7])('keeps an exact, balanced cover of %i partitions through random joins, leaves and disconnects', async (partitions) => {
    const rand = prng(partitions * 7919);
    const admin = await RawClient.connect(server.port, 'classic');
    await admin.login();
    const stream = `rebalance-${partitions}`;
    await createTopic(admin, stream, 't', partitions);
    await admin.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream, topic: 't', name: 'g' }));
    const target = encodeGroupTarget({ stream, topic: 't', group: 'g' });
    const members: RawClient[] = [];
    for (let step = 0; step < 30; step++) {
      const roll = rand();
      if (members.length === 0 || (roll < 0.5 && members.length < 6)) {
        const c = await RawClient.connect(server.port, rand() < 0.5 ? 'vsr' : 'classic');
        await c.login();
        await c.ok(CommandCode.JoinConsumerGroup, target);
        members.push(c);
      } else {
        const [gone] = members.splice(Math.floor(rand() * members.length), 1);
        if (roll < 0.75) await gone?.ok(CommandCode.LeaveConsumerGroup, target);
        gone?.close();
      }
      // A disconnect is seen when the server notices the closed socket.
      await expect.poll(async () => decodeConsumerGroupDetails(await admin.ok(CommandCode.GetConsumerGroup, target))?.members.length, { timeout: 5000 }).toBe(members.length);
      const group = decodeConsumerGroupDetails(await admin.ok(CommandCode.GetConsumerGroup, target));
      const shares = group?.members.map((m) => m.partitions.length) ?? [];
      expect(group?.members.flatMap((m) => m.partitions).sort((a, b) => a - b)).toEqual(members.length === 0 ? [] : Array.from({ length: partitions }, (_, i) => i));
      if (shares.length > 0) expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
    for (const m of members) m.close();
    admin.close();
  });
});
