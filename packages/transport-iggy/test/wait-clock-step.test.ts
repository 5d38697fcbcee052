/**
 * A wait's deadline is kept on the monotonic clock: when the wall clock steps back (an NTP
 * correction, a VM resumed), `waitFor` still ends after its `timeoutMs`. On `Date.now()` a
 * one-hour step back made a 200 ms wait poll for an hour, breaking "waiting is always bounded".
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IggyTransport } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const HOUR_MS = 3_600_000;
const servers: FakeServer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of servers.splice(0)) await s.close();
});

describe.each(['vsr', 'classic'] as const)('a wait over %s when the wall clock steps back', (protocol) => {
  it('the transport wait and a group member wait still end at their timeout', async () => {
    const server = await startFakeServer();
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=${protocol}`, { heartbeatIntervalMs: 0, waitPollMs: { min: 5, max: 20 } });
    try {
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      const member = await t.joinGroup({ stream: 's', topic: 't', group: 'g' });
      // Only Date is faked: timers and performance.now() run as they do.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      const waiting = t.waitFor({ stream: 's', topic: 't', partition: 0, offset: 0n, timeoutMs: 200 });
      const memberWaiting = member.waitFor(200);
      vi.setSystemTime(Date.now() - HOUR_MS);
      // Unbounded before the fix: the test's own timeout (not a speed limit) then fails it.
      expect(await waiting).toBe(false);
      expect(await memberWaiting).toBe(false);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });
});
