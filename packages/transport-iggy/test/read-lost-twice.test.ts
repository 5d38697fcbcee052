/**
 * A read is written again once after a lost connection. Lost a second time, it fails with a
 * `transport` error, but not one that says its outcome is unknown: a read changes nothing, and
 * retry policies treat an unknown outcome as "may have been applied".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

describe.each(['vsr', 'classic'] as const)('a read whose connection is lost twice over %s', (protocol) => {
  it('fails as a lost connection, not with an unknown outcome', async () => {
    let cuts = 0;
    const server = await startFakeServer({
      intercept: (r) => (r.code === CommandCode.PollMessages && cuts++ < 2 ? { destroy: true } : undefined),
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=${protocol}`, { heartbeatIntervalMs: 0, reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20 } });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    const error = await t.read({ stream: 's', topic: 't', partition: 0, offset: 0n }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(cuts).toBe(2);
    expect(error).toMatchObject({ kind: 'transport' });
    expect(isOutcomeUnknown(error)).toBe(false);
    // The third try is served.
    await expect(t.read({ stream: 's', topic: 't', partition: 0, offset: 0n })).resolves.toEqual([]);
  });
});
