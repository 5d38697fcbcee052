/**
 * The dropped-connection scenario, shared by the fake-server and dev-server tests: a group
 * member reads through a proxy that cuts its connection mid-stream; it must reconnect, re-join
 * and continue from the committed offset, every record committed exactly once.
 */

import { IggyTransport } from '@agdx/transport-iggy';
import type { LogRecord } from '@agdx/transport';
import { expect } from 'vitest';
import { startTcpProxy } from './tcp-proxy.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Runs the scenario against the server on `serverPort`. */
export async function runDropScenario(serverPort: number, protocol: 'vsr' | 'classic'): Promise<void> {
  const proxy = await startTcpProxy(serverPort);
  const options = { protocol, requestTimeoutMs: 3000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 20, initialDelayMs: 10, maxDelayMs: 100 } } as const;
  const producer = await IggyTransport.connect({ port: serverPort, ...options });
  const consumer = await IggyTransport.connect({ port: proxy.port, ...options });
  try {
    const stream = `drop-${protocol}-${Date.now().toString(36)}`;
    const topic = 'events';
    const partitions = 2;
    const perPartition = 60;
    await producer.ensureStream(stream);
    await producer.ensureTopic({ stream, topic }, { partitions });
    for (let p = 0; p < partitions; p++) {
      for (let i = 0; i < perPartition; i += 10) {
        await producer.append({ stream, topic, routing: { partition: p }, records: Array.from({ length: 10 }, (_, k) => ({ payload: text(`${p}/${i + k}`) })) });
      }
    }
    const member = await consumer.joinGroup({ stream, topic, group: 'workers' });
    const committed = new Map<number, bigint[]>();
    let transportErrors = 0;
    let cuts = 0;
    const total = partitions * perPartition;
    const count = (): number => [...committed.values()].reduce((n, list) => n + list.length, 0);
    const deadline = Date.now() + 20_000;
    while (count() < total && Date.now() < deadline) {
      if ((cuts === 0 && count() >= 25) || (cuts === 1 && count() >= 70)) {
        cuts++;
        proxy.cut();
      }
      let records: readonly LogRecord[];
      let partition: number | undefined;
      try {
        ({ records, partition } = await member.poll({ maxCount: 7 }));
      } catch (error) {
        expect((error as { kind?: string }).kind).toBe('transport');
        transportErrors++;
        continue;
      }
      if (partition === undefined || records.length === 0) continue;
      const last = (records.at(-1) as LogRecord).offset;
      let stored = false;
      try {
        await member.commit(partition, last);
        stored = true;
      } catch (error) {
        expect((error as { kind?: string }).kind).toBe('transport');
        transportErrors++;
        // The reply may have been lost after the server stored it: ask the server.
        const now = await consumer.getOffset({ stream, topic, partition, consumer: { kind: 'group', name: 'workers' } });
        stored = now !== undefined && now >= last;
      }
      if (stored) committed.set(partition, [...(committed.get(partition) ?? []), ...records.map((r) => r.offset)]);
    }
    expect(cuts).toBe(2);
    expect(proxy.accepted()).toBeGreaterThanOrEqual(3);
    for (let p = 0; p < partitions; p++) {
      // Every committed record once, in order, none lost, none twice.
      expect(committed.get(p)).toEqual(Array.from({ length: perPartition }, (_, i) => BigInt(i)));
      expect(await producer.getOffset({ stream, topic, partition: p, consumer: { kind: 'group', name: 'workers' } })).toBe(BigInt(perPartition - 1));
    }
    expect(transportErrors).toBeGreaterThanOrEqual(0);
    await member.leave();
  } finally {
    await consumer.close();
    await producer.close();
    await proxy.close();
  }
}
