/**
 * A cluster roster is input from the network: a node may name itself or another node the leader
 * at an address no client should dial (an empty host, which Node resolves to this machine, a
 * host name with bytes no host name has, one longer than DNS allows). Such nodes are left out
 * like nodes without a TCP port; a roster whose leader is one of them has no usable leader, so
 * the connect ends with a typed error within its bound and nothing was dialled there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode, encodeClusterMetadata } from '@agdx/iggy-protocol';
import type { ClusterNode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function node(ip: string, port: number, role: ClusterNode['role']): ClusterNode {
  return { name: `n${port}`, ip, endpoints: { tcp: port, quic: 0, http: 0, websocket: 0 }, role, status: 'Healthy' };
}

/** Connects to the seed with the given options; the connect's failure, or undefined if it succeeded (then closed). */
function connectFailure(port: number, protocol: 'vsr' | 'classic', options: Parameters<typeof IggyTransport.connect>[1]): Promise<unknown> {
  return IggyTransport.connect(`iggy://iggy:iggy@127.0.0.1:${port}?protocol=${protocol}`, options).then(
    async (t) => {
      await t.close();
      return undefined;
    },
    (e: unknown) => e,
  );
}

describe.each(['vsr', 'classic'] as const)('a roster naming a leader at a hostile address over %s', (protocol) => {
  it.each([
    ['an empty host', ''],
    ['a host with a line break', '127.0.0.1\r\nX-Injected: 1'],
    ['a host with a space', 'localhost evil'],
    ['a host longer than DNS allows', `${'a'.repeat(300)}.example`],
  ])('%s is not dialled', async (_label, ip) => {
    // The address the hostile leader points at: a server that must see no connection.
    const bystander = await startFakeServer();
    servers.push(bystander);
    let seed: FakeServer | undefined;
    seed = await startFakeServer({
      intercept: (r) =>
        r.code === CommandCode.GetClusterMetadata
          ? { payload: encodeClusterMetadata({ name: 'c', nodes: [node('127.0.0.1', seed?.port ?? 1, 'Follower'), node(ip, bystander.port, 'Leader')] }) }
          : undefined,
    });
    servers.push(seed);
    const error = await connectFailure(seed.port, protocol, {
      heartbeatIntervalMs: 0,
      connectTimeoutMs: 1_000,
      cluster: { failoverTimeoutMs: 500 },
      reconnect: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 50 },
    });
    expect(error).toMatchObject({ kind: 'transport' });
    expect(bystander.accepted()).toBe(0);
  });

  it('a roster of more nodes than any cluster has is refused as malformed, typed, without dialling them', async () => {
    const bystander = await startFakeServer();
    servers.push(bystander);
    const nodes = Array.from({ length: 1000 }, (_, i) => node('127.0.0.1', i === 0 ? bystander.port : 20_000 + i, i === 0 ? 'Leader' : 'Follower'));
    const seed = await startFakeServer({
      intercept: (r) => (r.code === CommandCode.GetClusterMetadata ? { payload: encodeClusterMetadata({ name: 'c', nodes }) } : undefined),
    });
    servers.push(seed);
    const error = await connectFailure(seed.port, protocol, {
      heartbeatIntervalMs: 0,
      reconnect: { maxAttempts: 2, initialDelayMs: 10, maxDelayMs: 10 },
    });
    expect(error).toMatchObject({ kind: 'transport' });
    expect(String((error as Error).message)).toMatch(/malformed cluster metadata \(1000 nodes/);
    expect(bystander.accepted()).toBe(0);
  });
});
