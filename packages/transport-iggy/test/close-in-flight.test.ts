/**
 * `close()` while every kind of call is under way: appends on the wire and queued behind them
 * (merged), reads, a wait, a group member's poll, and calls the server never answers. Every
 * promise settles, each with a typed error (`closed`, or an unknown outcome for a written
 * append), and nothing resolves after the close returned.
 */
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { TransportError } from '@agdx/transport';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe.each(['vsr', 'classic'] as const)('close() with calls in flight over %s', (protocol) => {
  it.each([1, 3])('settles every call typed (%i connections)', async (connections) => {
    let silent = false;
    // VSR servers drop what they will not answer; a classic server answers every request in
    // order, so there a request is held instead (and everything behind it on its connection).
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = await startFakeServer({
      intercept: (r) => {
        if (!silent || r.code === CommandCode.LeaveConsumerGroup) return undefined;
        return protocol === 'vsr' ? { silent: true } : { hold: held };
      },
    });
    servers.push(server);
    onTestFinished(release);
    const t = await IggyTransport.connect(`${server.url}?protocol=${protocol}`, { heartbeatIntervalMs: 0, connections, requestTimeoutMs: 600_000 });
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 2 });
    const member = await t.joinGroup({ stream: 's', topic: 't', group: 'g' });
    silent = true;
    const one = { payload: Uint8Array.of(1) };
    const calls: Promise<unknown>[] = [
      ...Array.from({ length: 5 }, () => t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [one] })),
      ...Array.from({ length: 3 }, () => t.append({ stream: 's', topic: 't', routing: { key: 'k' }, records: [one] })),
      t.append({ stream: 's', topic: 't', routing: { balanced: true }, records: [one] }),
      t.read({ stream: 's', topic: 't', partition: 1, offset: 0n }),
      t.waitFor({ stream: 's', topic: 't', partition: 1, offset: 5n, timeoutMs: 600_000 }),
      t.describeTopic({ stream: 's', topic: 't' }),
      t.getOffset({ stream: 's', topic: 't', partition: 0, consumer: { kind: 'consumer', name: 'c' } }),
      member.poll({ maxCount: 10 }),
    ];
    const settled = Promise.allSettled(calls);
    // Let every call reach its connection (some are written, some queue behind them).
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    await t.close();
    const outcomes = await settled;
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason;
      expect(TransportError.is(error)).toBe(true);
      expect(['closed', 'transport']).toContain((error as TransportError).kind);
    }
  });
});
