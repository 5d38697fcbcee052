// The order in which a client tries the nodes of a cluster, and where a roster sends it.
import { describe, expect, it } from 'vitest';
import type { ClusterNode } from '@agdx/iggy-protocol';
import { ClusterDirectory } from '../src/cluster-directory.js';

const node = (host: string, port: number, role: ClusterNode['role'], status: ClusterNode['status'] = 'Healthy'): ClusterNode => ({
  name: `${host}:${port}`,
  ip: host,
  endpoints: { tcp: port, quic: 0, http: 0, websocket: 0 },
  role,
  status,
});

describe('ClusterDirectory', () => {
  it('tries the known leader, then the seeds in order, then the rest of the roster, each once', () => {
    const d = new ClusterDirectory([{ host: 'a', port: 1 }, { host: 'b', port: 2 }]);
    expect(d.candidates()).toEqual([{ host: 'a', port: 1 }, { host: 'b', port: 2 }]);
    const s = d.learn({ name: 'c', nodes: [node('A', 1, 'Follower'), node('c', 3, 'Leader'), node('d', 0, 'Follower')] }, { host: 'a', port: 1 });
    expect(s).toEqual({ kind: 'redirect', leader: { host: 'c', port: 3 } });
    // Host names compare without case; a node without a TCP port is not dialled.
    expect(d.candidates()).toEqual([{ host: 'c', port: 3 }, { host: 'a', port: 1 }, { host: 'b', port: 2 }]);
    expect(d.learn({ name: 'c', nodes: [node('a', 1, 'Follower'), node('c', 3, 'Leader')] }, { host: 'C', port: 3 })).toEqual({ kind: 'stay' });
    d.forgetLeader();
    expect(d.candidates()[0]).toEqual({ host: 'a', port: 1 });
    expect(d.clustered).toBe(true);
  });

  it('a roster of one keeps the client on its seed and adds no address', () => {
    const d = new ClusterDirectory([{ host: 'localhost', port: 8090 }]);
    expect(d.learn({ name: 'single-node', nodes: [node('0.0.0.0', 8090, 'Leader')] }, { host: 'localhost', port: 8090 })).toEqual({ kind: 'stay' });
    expect(d.candidates()).toEqual([{ host: 'localhost', port: 8090 }]);
    expect(d.clustered).toBe(false);
  });

  it('several nodes and no healthy leader: leaderless', () => {
    const d = new ClusterDirectory([{ host: 'a', port: 1 }]);
    expect(d.learn({ name: 'c', nodes: [node('a', 1, 'Follower'), node('b', 2, 'Leader', 'Starting')] }, { host: 'a', port: 1 })).toEqual({ kind: 'leaderless' });
    expect(d.leader).toBeUndefined();
    expect(d.candidates()).toEqual([{ host: 'a', port: 1 }, { host: 'b', port: 2 }]);
  });

  it('tries a node that refused work as not the primary last, until it serves again', () => {
    const d = new ClusterDirectory([{ host: 'a', port: 1 }, { host: 'b', port: 2 }, { host: 'c', port: 3 }]);
    d.refusedWork({ host: 'A', port: 1 });
    expect(d.candidates()).toEqual([{ host: 'b', port: 2 }, { host: 'c', port: 3 }, { host: 'a', port: 1 }]);
    d.served({ host: 'a', port: 1 });
    expect(d.candidates()).toEqual([{ host: 'a', port: 1 }, { host: 'b', port: 2 }, { host: 'c', port: 3 }]);
  });

  it('leaves out roster nodes whose address is no host name or IP literal', () => {
    const d = new ClusterDirectory([{ host: 'a', port: 1 }]);
    const s = d.learn({ name: 'c', nodes: [node('a', 1, 'Follower'), node('', 2, 'Leader'), node('::1', 3, 'Follower'), node('x y', 4, 'Follower')] }, { host: 'a', port: 1 });
    expect(s).toEqual({ kind: 'leaderless' });
    expect(d.candidates()).toEqual([{ host: 'a', port: 1 }, { host: '::1', port: 3 }]);
  });
});
