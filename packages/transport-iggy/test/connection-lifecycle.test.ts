import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

let server: FakeServer;
let proxy: TcpProxy;
beforeAll(async () => {
  server = await startFakeServer();
  proxy = await startTcpProxy(server.port);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

async function kindOf(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
  } catch (error) {
    return (error as { kind?: string }).kind;
  }
  return undefined;
}

const options = { requestTimeoutMs: 2000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20 } } as const;

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`connection life cycle (${protocol})`, () => {
    it('calls made while the connection is re-established wait for it and succeed', async () => {
      proxy.setMode('forward');
      const t = await IggyTransport.connect({ port: proxy.port, protocol, ...options, reconnect: { maxAttempts: 50, initialDelayMs: 20, maxDelayMs: 20 } });
      try {
        const stream = `life-${protocol}-queued`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 1 });
        // The server goes away; once the client has noticed and is retrying, calls are queued.
        proxy.setMode('refuse');
        const before = proxy.accepted();
        proxy.cut();
        while (proxy.accepted() < before + 1) await new Promise((r) => setTimeout(r, 5));
        const pending = Promise.all([
          t.append({ stream, topic: 't', routing: { partition: 0 }, records: [{ payload: Uint8Array.of(1) }] }),
          t.describeTopic({ stream, topic: 't' }),
          t.read({ stream, topic: 't', partition: 0, offset: 0n }),
        ]);
        proxy.setMode('forward');
        const results = await pending;
        expect(results[0].baseOffset).toBe(0n);
        expect(results[2]).toHaveLength(1);
        expect(t.reconnects).toBe(1);
      } finally {
        await t.close();
      }
    });

    it('a server that stays down fails calls after the bounded attempts; the next call reconnects once it is back', async () => {
      proxy.setMode('forward');
      const t = await IggyTransport.connect({ port: proxy.port, protocol, ...options });
      try {
        const stream = `life-${protocol}-down`;
        await t.ensureStream(stream);
        proxy.setMode('refuse');
        proxy.cut();
        expect(await kindOf(() => t.ensureStream(stream))).toBe('transport');
        proxy.setMode('forward');
        await t.ensureStream(stream);
        expect(t.reconnects).toBeGreaterThanOrEqual(1);
      } finally {
        await t.close();
      }
    });

    it('connecting to a server that never answers times out; an abort signal stops it sooner', async () => {
      proxy.setMode('blackhole');
      try {
        expect(await kindOf(() => IggyTransport.connect({ port: proxy.port, protocol, ...options, connectTimeoutMs: 100, reconnect: { maxAttempts: 2, initialDelayMs: 1 } }))).toBe('timeout');
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 30);
        const started = Date.now();
        expect(await kindOf(() => IggyTransport.connect({ port: proxy.port, protocol, ...options, connectTimeoutMs: 5000 }, {}, { signal: controller.signal }))).toBe('cancelled');
        expect(Date.now() - started).toBeLessThan(2000);
      } finally {
        proxy.setMode('forward');
      }
    });
    it('close during reconnection attempts stops them and leaves no socket behind', async () => {
      proxy.setMode('forward');
      const t = await IggyTransport.connect({ port: proxy.port, protocol, ...options, reconnect: { maxAttempts: 50, initialDelayMs: 20, maxDelayMs: 20 } });
      proxy.setMode('refuse');
      proxy.cut();
      const before = proxy.accepted();
      while (proxy.accepted() < before + 1) await new Promise((r) => setTimeout(r, 5));
      const pending = kindOf(() => t.describeTopic({ stream: 's', topic: 't' }));
      await t.close();
      expect(await pending).toBe('closed');
      proxy.setMode('forward');
      const after = proxy.accepted();
      await new Promise((r) => setTimeout(r, 100));
      expect(proxy.accepted()).toBe(after);
    });
    it('a lost member connection re-joins its group on its own, before any call', async () => {
      proxy.setMode('forward');
      const t = await IggyTransport.connect({ port: proxy.port, protocol, ...options });
      try {
        const stream = `life-${protocol}-rejoin`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 2 });
        const member = await t.joinGroup({ stream, topic: 't', group: 'g' });
        const [first] = server.groupMembers(stream, 't', 'g');
        expect(first).toBeDefined();
        proxy.cut();
        const until = Date.now() + 5000;
        let now = server.groupMembers(stream, 't', 'g');
        while (Date.now() < until && !(now.length === 1 && (now[0] as number) > (first as number))) {
          await new Promise((r) => setTimeout(r, 5));
          now = server.groupMembers(stream, 't', 'g');
        }
        // The same member is in the group again, over a new connection.
        expect(now).toHaveLength(1);
        expect(now[0]).toBeGreaterThan(first as number);
        expect(await member.assignment()).toEqual([0, 1]);
      } finally {
        await t.close();
      }
    });

  });
}
