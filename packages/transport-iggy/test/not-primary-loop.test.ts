/**
 * A node that keeps answering 58 (TransientNotAccepted, "not the primary") while its own roster
 * names it the healthy leader: the client must not reconnect in a tight loop, and the call must
 * end with a typed error that says nothing was applied, well inside its request timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode, encodeClusterMetadata } from '@agdx/iggy-protocol';
import type { ClusterNode } from '@agdx/iggy-protocol';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

function node(port: number, role: ClusterNode['role']): ClusterNode {
  return { name: `n${port}`, ip: '127.0.0.1', endpoints: { tcp: port, quic: 0, http: 0, websocket: 0 }, role, status: 'Healthy' };
}

describe.each(['vsr', 'classic'] as const)('a self-proclaimed leader refusing with 58 over %s', (protocol) => {
  it('ends the call with a typed, clean error after a bounded number of reconnects', async () => {
    let refuse = false;
    let refusals = 0;
    // The second address of the roster is never dialled while the first claims the lead.
    const self: FakeServer = await startFakeServer({
      intercept: (r) => {
        if (r.code === CommandCode.GetClusterMetadata) return { payload: encodeClusterMetadata({ name: 'c', nodes: [node(self.port, 'Leader'), node(1, 'Follower')] }) };
        if (refuse && r.code === CommandCode.CreateStream) {
          refusals++;
          return { status: 58 };
        }
        return undefined;
      },
    });
    servers.push(self);
    const t = await IggyTransport.connect(`iggy://iggy:iggy@127.0.0.1:${self.port}?protocol=${protocol}`, {
      heartbeatIntervalMs: 0,
      requestTimeoutMs: 600_000,
      cluster: { failoverTimeoutMs: 2_000 },
      reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 },
    });
    transports.push(t);
    refuse = true;
    const error = await t.ensureStream('s').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'transport' });
    // Refused unapplied every time: not an unknown outcome.
    expect(isOutcomeUnknown(error)).toBe(false);
    expect(refusals).toBeGreaterThan(1);
    expect(refusals).toBeLessThanOrEqual(10);
    expect(self.accepted()).toBeLessThanOrEqual(12);
    // The connection is usable again once the node serves.
    refuse = false;
    await t.ensureStream('s');
  });
});
