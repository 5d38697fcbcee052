/**
 * Cluster discovery off (`cluster.discover: false`) with several seeds: the client cannot read
 * who the primary is, so when the node it is on refuses with 58 (not the primary), the next
 * connect must try the other seeds before that node again, or it would never leave a backup
 * listed first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

describe.each(['vsr', 'classic'] as const)('seeds without discovery over %s', (protocol) => {
  it('a backup listed first refuses once; the call is served by the next seed', async () => {
    let refusals = 0;
    const backup = await startFakeServer({
      intercept: (r) => {
        if (r.code !== CommandCode.CreateStream) return undefined;
        refusals++;
        return { status: 58 };
      },
    });
    const primary = await startFakeServer();
    servers.push(backup, primary);
    const t = await IggyTransport.connect(`iggy://iggy:iggy@127.0.0.1:${backup.port},127.0.0.1:${primary.port}?protocol=${protocol}`, {
      heartbeatIntervalMs: 0,
      cluster: { discover: false, failoverTimeoutMs: 5_000 },
      reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 },
    });
    transports.push(t);
    expect(t.endpoint?.port).toBe(backup.port);
    await t.ensureStream('s');
    expect(refusals).toBe(1);
    expect(t.endpoint?.port).toBe(primary.port);
    await expect(primary.log.describeTopic({ stream: 's', topic: 'x' })).rejects.toMatchObject({ kind: 'not-found' });
  });
});
