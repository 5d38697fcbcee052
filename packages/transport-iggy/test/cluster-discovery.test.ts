/**
 * Cluster discovery against fake servers whose GetClusterMetadata answer a test chooses: a
 * refusal or a roster of one keeps the client where it is, a roster naming another leader moves
 * it there, a hostile roster or a leaderless cluster ends the connect with a typed error within
 * the stated bound. Both protocol generations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode, encodeClusterMetadata } from '@agdx/iggy-protocol';
import type { ClusterMetadata, ClusterNode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import type { FakeAction, FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

async function fake(roster: () => FakeAction | undefined): Promise<FakeServer> {
  const s = await startFakeServer({ intercept: (r) => (r.code === CommandCode.GetClusterMetadata ? roster() : undefined) });
  servers.push(s);
  return s;
}

function node(port: number, role: ClusterNode['role'], status: ClusterNode['status'] = 'Healthy'): ClusterNode {
  return { name: `n${port}`, ip: '127.0.0.1', endpoints: { tcp: port, quic: 0, http: 0, websocket: 0 }, role, status };
}

function roster(...nodes: ClusterNode[]): FakeAction {
  const metadata: ClusterMetadata = { name: 'fake-cluster', nodes };
  return { payload: encodeClusterMetadata(metadata) };
}

async function connect(ports: readonly number[], protocol: 'vsr' | 'classic', failoverTimeoutMs = 5_000): Promise<IggyTransport> {
  const t = await IggyTransport.connect(`iggy://iggy:iggy@${ports.map((p) => `127.0.0.1:${p}`).join(',')}?protocol=${protocol}`, {
    heartbeatIntervalMs: 0,
    connectTimeoutMs: 1_000,
    cluster: { failoverTimeoutMs },
    reconnect: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 100 },
  });
  transports.push(t);
  return t;
}

async function failureOf(p: Promise<unknown>): Promise<{ kind?: string; message: string; ms: number }> {
  const started = Date.now();
  try {
    await p;
  } catch (error) {
    return { kind: (error as { kind?: string }).kind, message: String((error as Error).message), ms: Date.now() - started };
  }
  throw new Error('expected a failure');
}

describe.each(['vsr', 'classic'] as const)('cluster discovery over %s', (protocol) => {
  it('stays on a server that refuses GetClusterMetadata, or reports a roster of one', async () => {
    const refusing = await fake(() => ({ status: 5 }));
    expect((await connect([refusing.port], protocol)).endpoint?.port).toBe(refusing.port);
    // A roster of one serves whatever it calls itself (Iggy without clustering).
    const single = await fake(() => roster(node(1, 'Follower')));
    const t = await connect([single.port], protocol);
    expect(t.endpoint?.port).toBe(single.port);
    await t.ensureStream('s');
  });

  it('moves to the leader another node names, and reads the roster again there', async () => {
    let leaderPort = 0;
    const leader = await fake(() => roster(node(leaderPort, 'Leader'), node(follower.port, 'Follower')));
    leaderPort = leader.port;
    const follower = await fake(() => roster(node(leader.port, 'Leader'), node(follower.port, 'Follower')));
    const t = await connect([follower.port], protocol);
    expect(t.endpoint?.port).toBe(leader.port);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    await expect(leader.log.describeTopic({ stream: 's', topic: 't' })).resolves.toMatchObject({ partitionCount: 1 });
    await expect(follower.log.describeTopic({ stream: 's', topic: 't' })).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('malformed cluster metadata: a typed transport error within the bound', async () => {
    const hostile = await fake(() => ({ payload: Uint8Array.from([0xff, 0xff, 0xff, 0x7f, 1, 2, 3]) }));
    const failure = await failureOf(connect([hostile.port], protocol, 1_500));
    expect(failure.kind).toBe('transport');
    expect(failure.message).toMatch(/malformed cluster metadata/);
    expect(failure.ms).toBeLessThan(1_500 + 5_000);
  });

  it('a leaderless roster, or a leader that is not healthy: a typed transport error within failoverTimeoutMs', async () => {
    const a = await fake(() => roster(node(a.port, 'Follower'), node(b.port, 'Leader', 'Starting')));
    const b = await fake(() => roster(node(a.port, 'Follower'), node(b.port, 'Follower')));
    const failure = await failureOf(connect([a.port, b.port], protocol, 1_000));
    expect(failure.kind).toBe('transport');
    expect(failure.message).toMatch(/no Iggy primary found within 1000 ms|no reachable, healthy leader/);
    expect(failure.ms).toBeLessThan(1_000 + 5_000);
  });

  it('leaders that point at each other: the redirects are bounded and the connect fails typed', async () => {
    const a = await fake(() => roster(node(a.port, 'Follower'), node(b.port, 'Leader')));
    const b = await fake(() => roster(node(a.port, 'Leader'), node(b.port, 'Follower')));
    const failure = await failureOf(connect([a.port], protocol, 1_000));
    expect(failure.kind).toBe('transport');
    expect(failure.ms).toBeLessThan(1_000 + 5_000);
  });
});
