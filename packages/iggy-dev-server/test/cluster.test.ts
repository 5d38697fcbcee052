// GetClusterMetadata on a single server and on an in-process cluster; what a backup refuses;
// moving the primary, stopping and starting nodes.
import { afterEach, describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodeClusterMetadata,
  decodeStreamDetails,
  encodeCreateStreamRequest,
  encodeStreamTarget,
  initChecksums,
} from '@agdx/iggy-protocol';
import { DevServerError, startDevCluster, startDevServer } from '../src/index.js';
import type { DevCluster } from '../src/index.js';
import { PROTOCOLS, RawClient } from './helpers/raw-client.js';
import { createTopic, pollFrom, sendTexts, textsOf } from './helpers/ops.js';

const clients: RawClient[] = [];
let cluster: DevCluster | undefined;

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await cluster?.close();
  cluster = undefined;
});

async function login(port: number, protocol: 'vsr' | 'classic'): Promise<RawClient> {
  await initChecksums();
  const c = await RawClient.connect(port, protocol);
  clients.push(c);
  const r = await c.login();
  if (!r.ok) throw r.error;
  return c;
}

describe.each(PROTOCOLS)('cluster metadata over %s', (protocol) => {
  it('a single server reports itself as the only node, leader, with its real TCP port and no other transport', async () => {
    await using server = await startDevServer();
    const c = await login(server.port, protocol);
    const metadata = decodeClusterMetadata(await c.ok(CommandCode.GetClusterMetadata));
    expect(metadata).toEqual({
      name: 'single-node',
      nodes: [{ name: 'iggy-node', ip: '127.0.0.1', endpoints: { tcp: server.port, quic: 0, http: 0, websocket: 0 }, role: 'Leader', status: 'Healthy' }],
    });
  });

  it('every node of a cluster serves the same roster, and a view change moves the leader role', async () => {
    cluster = await startDevCluster({ nodes: 3 });
    const ports = cluster.nodes.map((n) => n.port);
    expect(new Set(ports).size).toBe(3);
    const rosters = await Promise.all(ports.map(async (port) => decodeClusterMetadata(await (await login(port, protocol)).ok(CommandCode.GetClusterMetadata))));
    for (const r of rosters) {
      expect(r.name).toBe('agdx-dev-cluster');
      expect(r.nodes.map((n) => n.endpoints.tcp)).toEqual(ports);
      expect(r.nodes.map((n) => n.role)).toEqual(['Leader', 'Follower', 'Follower']);
    }
    expect(cluster.movePrimary(2)).toBe(2);
    expect(cluster.primary).toBe(2);
    const after = decodeClusterMetadata(await clients[0]!.ok(CommandCode.GetClusterMetadata));
    expect(after.nodes.map((n) => n.role)).toEqual(['Follower', 'Follower', 'Leader']);
    // Iggy's rule: primary = view % nodes; the view only grows.
    expect(cluster.movePrimary(2)).toBe(5);
    expect(cluster.movePrimary()).toBe(6);
    expect(cluster.primary).toBe(0);
  });

  it('a backup refuses replicated commands with 58 (TransientNotAccepted) and serves reads of the shared state', async () => {
    cluster = await startDevCluster({ nodes: 2 });
    const primary = await login(cluster.nodes[0]!.port, protocol);
    const backup = await login(cluster.nodes[1]!.port, protocol);
    await createTopic(primary, 's', 't', 1);
    await sendTexts(primary, 's', 't', 0, ['a', 'b']);
    expect(await backup.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'other' }, protocol))).toBe(58);
    await expect(sendTexts(backup, 's', 't', 0, ['c'])).rejects.toMatchObject({ code: 58 });
    expect(decodeStreamDetails(await backup.ok(CommandCode.GetStream, encodeStreamTarget({ stream: 's' })), protocol)?.name).toBe('s');
    expect(textsOf(await pollFrom(backup, 's', 't', 0, 0n))).toEqual(['a', 'b']);
    // After a view change the roles swap: the old primary refuses, the new one accepts.
    cluster.movePrimary(1);
    await expect(sendTexts(primary, 's', 't', 0, ['c'])).rejects.toMatchObject({ code: 58 });
    await sendTexts(backup, 's', 't', 0, ['c']);
    expect(textsOf(await pollFrom(primary, 's', 't', 0, 0n))).toEqual(['a', 'b', 'c']);
  });
});

describe('cluster life cycle', () => {
  it('stopping the primary drops its connections and moves the view to the next running node; a stopped node starts again on its port', async () => {
    cluster = await startDevCluster({ nodes: 3 });
    const port0 = cluster.nodes[0]!.port;
    const c = await login(port0, 'vsr');
    await cluster.stopNode(1);
    await cluster.stopNode(0);
    expect(await c.waitClosed(5000)).toBe(true);
    expect(cluster.primary).toBe(2);
    expect(cluster.nodes.map((n) => n.running)).toEqual([false, false, true]);
    await cluster.startNode(0);
    expect(cluster.nodes[0]!.port).toBe(port0);
    const again = await login(port0, 'vsr');
    const roles = decodeClusterMetadata(await again.ok(CommandCode.GetClusterMetadata)).nodes.map((n) => n.role);
    expect(roles).toEqual(['Follower', 'Follower', 'Leader']);
  });

  it('names every node in its url and refuses bad shapes', async () => {
    cluster = await startDevCluster({ nodes: 2, user: 'admin', password: 'secret' });
    expect(cluster.url).toBe(`iggy://admin:secret@127.0.0.1:${cluster.nodes[0]!.port},127.0.0.1:${cluster.nodes[1]!.port}`);
    await expect(startDevCluster({ nodes: 1 })).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'invalid'));
    await expect(startDevCluster({ nodes: 2, port: 65535 })).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'invalid'));
    expect(() => cluster!.movePrimary(7)).toThrow(/no node 7/);
    await expect(cluster.stopNode(-1)).rejects.toThrow(/no node/);
  });
});
