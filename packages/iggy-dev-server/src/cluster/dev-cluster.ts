/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `startDevCluster()`: N dev-server nodes in one process that serve one declared metadata view
 * and can be told to move the primary, for testing clients against an Iggy cluster.
 *
 * The nodes do not replicate: they share one broker and one storage, which stands in for a
 * replication that never lags. What a client sees therefore matches a healthy Iggy cluster
 * (every acknowledged append is on the new primary after a view change); what it cannot show is
 * an append lost by a real cluster. Moving the primary, stopping a node and starting it again
 * are the faults a client must survive.
 */

import type { DevServer } from '../dev-server.js';
import { formatHost, openSharedState, startNode } from '../dev-server.js';
import type { SharedNodeState } from '../dev-server.js';
import { DevServerError } from '../errors.js';
import type { DevServerOptions } from '../options.js';
import { resolveOptions } from '../options.js';
import { ClusterRoster } from './roster.js';

/** Options of {@link startDevCluster}: a dev server's, plus the cluster's shape. */
export interface DevClusterOptions extends DevServerOptions {
  /** Nodes (2..16, default 3). */
  readonly nodes?: number | undefined;
  /** The cluster name reported by GetClusterMetadata (default `agdx-dev-cluster`). */
  readonly name?: string | undefined;
  /**
   * Base TCP port: node i listens on `port + i`. 0 (the default) gives every node a free
   * ephemeral port.
   */
  readonly port?: number | undefined;
}

/** One node as the cluster sees it. */
export interface DevClusterNode {
  /** Roster index (node 0 is primary in view 0). */
  readonly index: number;
  /** Roster name, `node-<index>`. */
  readonly name: string;
  /** Listening address. */
  readonly host: string;
  /** Listening port (kept across a stop and start). */
  readonly port: number;
  /** False between {@link DevCluster.stopNode} and {@link DevCluster.startNode}. */
  readonly running: boolean;
}

/** A running cluster of dev-server nodes. */
export interface DevCluster extends AsyncDisposable {
  /** The nodes, in roster order. */
  readonly nodes: readonly DevClusterNode[];
  /** `iggy://user:password@h:p1,h:p2,...`: every node as a seed. */
  readonly url: string;
  /** The current view number. */
  readonly view: number;
  /** The primary's roster index (`view % nodes`, as Iggy computes it). */
  readonly primary: number;
  /**
   * A view change: makes `index` (default: the next node) the primary and returns the new view.
   * Moving it to a stopped node is allowed and leaves the cluster without a reachable primary
   * until the primary moves again, which is how tests show a client giving up in time.
   */
  movePrimary(index?: number): number;
  /**
   * Stops a node: its listener closes and its connections drop, like a crash. When it was the
   * primary, the view moves to the next running node (the view change a real cluster makes
   * after its heartbeat timeout, here at once).
   */
  stopNode(index: number): Promise<void>;
  /** Starts a stopped node again on the same port, as a backup of the current view. */
  startNode(index: number): Promise<void>;
  /** Open connections over all nodes. */
  connectionCount(): number;
  /** Moves the shared broker clock forward (see `DevServer.advanceTime`). */
  advanceTime(micros: bigint): void;
  /** Stops every node and closes the shared storage. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a cluster of dev-server nodes sharing one broker. Rejects with a `DevServerError` of
 * kind `invalid` for bad options, or the listen error of a node (the others are closed again).
 */
export async function startDevCluster(options: DevClusterOptions = {}): Promise<DevCluster> {
  const count = options.nodes ?? 3;
  if (!Number.isInteger(count) || count < 2 || count > 16) throw new DevServerError('invalid', `nodes must be an integer in 2..16, got ${String(options.nodes)}`);
  const basePort = options.port ?? 0;
  if (basePort !== 0 && (!Number.isInteger(basePort) || basePort < 1 || basePort + count - 1 > 65535)) {
    throw new DevServerError('invalid', `port must leave room for ${count} consecutive ports, got ${String(options.port)}`);
  }
  const name = options.name ?? 'agdx-dev-cluster';
  if (typeof name !== 'string' || name.length === 0 || name.length > 255) throw new DevServerError('invalid', 'name must be 1..255 characters');
  const o = resolveOptions({ ...options, port: basePort });
  const shared: SharedNodeState = await openSharedState(o);
  const roster = ClusterRoster.declared(
    name,
    Array.from({ length: count }, (_, i) => ({ name: `node-${i}`, host: o.host, port: basePort === 0 ? 0 : basePort + i })),
  );
  const servers: Array<DevServer | undefined> = new Array<DevServer | undefined>(count).fill(undefined);
  const start = async (index: number, port: number): Promise<void> => {
    servers[index] = await startNode({ ...options, port }, { shared, membership: { roster, index } });
  };
  try {
    for (let i = 0; i < count; i++) await start(i, roster.nodes[i]?.port ?? 0);
  } catch (error) {
    await Promise.all(servers.map((s) => s?.close()));
    shared.storage.close();
    throw error;
  }
  const checkIndex = (index: number): number => {
    if (!Number.isInteger(index) || index < 0 || index >= count) throw new DevServerError('invalid', `no node ${String(index)} in a cluster of ${count}`);
    return index;
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= Promise.all(servers.map((s) => s?.close())).then(() => {
      servers.fill(undefined);
      shared.storage.close();
    }));
  const credentials = `${encodeURIComponent(o.user)}:${encodeURIComponent(o.password)}`;
  return {
    get nodes(): readonly DevClusterNode[] {
      return roster.nodes.map((n, index) => ({ index, name: n.name, host: n.host, port: n.port, running: servers[index] !== undefined }));
    },
    url: `iggy://${credentials}@${roster.nodes.map((n) => `${formatHost(n.host)}:${n.port}`).join(',')}`,
    get view(): number {
      return roster.view;
    },
    get primary(): number {
      return roster.primary;
    },
    movePrimary: (index?: number) => roster.movePrimary(index === undefined ? undefined : checkIndex(index)),
    async stopNode(index: number): Promise<void> {
      const server = servers[checkIndex(index)];
      if (server === undefined) return;
      servers[index] = undefined;
      if (roster.primary === index) {
        for (let step = 1; step < count; step++) {
          const next = (index + step) % count;
          if (servers[next] !== undefined) {
            roster.movePrimary(next);
            break;
          }
        }
      }
      await server.close();
    },
    async startNode(index: number): Promise<void> {
      if (closing !== undefined) throw new DevServerError('invalid', 'the cluster is closed');
      if (servers[checkIndex(index)] !== undefined) return;
      await start(index, roster.nodes[index]?.port ?? 0);
    },
    connectionCount: () => servers.reduce((n, s) => n + (s?.connectionCount() ?? 0), 0),
    advanceTime: (micros) => shared.clock.advance(micros),
    close,
    [Symbol.asyncDispose]: close,
  };
}
