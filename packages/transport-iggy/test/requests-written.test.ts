/**
 * `IggyTransport.requestsWritten`: the requests a transport wrote, by command name, over its
 * shared connections and its group members' own, checked against what the server received.
 */
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeRequest, type FakeServer } from './support/fake-iggy-server.js';

let server: FakeServer;
const seen: FakeRequest[] = [];
const names = new Map<number, string>(Object.entries(CommandCode).map(([name, code]) => [code, name]));

beforeAll(async () => {
  server = await startFakeServer({
    intercept: (request) => {
      seen.push(request);
      return undefined;
    },
  });
});
afterAll(async () => {
  await server.close();
});

/** What the server received since `from`, by command name, without the handshake's requests. */
function received(from: number): Record<string, number> {
  const handshake = new Set<number>([CommandCode.LoginUser, CommandCode.LoginRegister, CommandCode.GetClusterMetadata]);
  const counts: Record<string, number> = {};
  for (const r of seen.slice(from)) {
    if (handshake.has(r.code)) continue;
    const name = names.get(r.code) ?? `command ${r.code}`;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe('requestsWritten', () => {
  for (const protocol of ['vsr', 'classic'] as const) {
    it(`${protocol}: counts every request the server received from the transport and its members, by command`, async () => {
      const from = seen.length;
      const t = await IggyTransport.connect(server.url, { protocol, heartbeatIntervalMs: 0, connections: 2 });
      try {
        expect(t.requestsWritten).toEqual({});
        const stream = `written-${protocol}-${Date.now().toString(36)}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 2 });
        await t.append({ stream, topic: 't', routing: { partition: 0 }, records: [{ payload: new Uint8Array([1]) }] });
        const before = t.requestsWritten.PollMessages ?? 0;
        await Promise.all([0, 1].map((partition) => t.read({ stream, topic: 't', partition, offset: 0n, maxCount: 10 })));
        expect((t.requestsWritten.PollMessages ?? 0) - before).toBe(2);
        const member = await t.joinGroup({ stream, topic: 't', group: 'g' });
        const owned = await member.assignment();
        await member.commit(owned[0] as number, 0n);
        const written = t.requestsWritten;
        expect(written.SendMessages).toBe(1);
        expect(written.StoreConsumerOffset).toBe(1);
        expect(written.JoinConsumerGroup).toBe(1);
        // Exactly what reached the server, the member's own connection included.
        expect(written).toEqual(received(from));
        // Each call answers a fresh object: a caller's copy does not change under it.
        (written as Record<string, number>).PollMessages = -1;
        expect(t.requestsWritten.PollMessages).toBeGreaterThanOrEqual(2);
      } finally {
        await t.close();
      }
    });
  }
});
