/// <reference lib="esnext.disposable" preserve="true" />
/**
 * `startDevServer()`: a single-node Apache Iggy server for development and tests, listening on
 * TCP for both protocol generations at once.
 */

import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { UserDirectory } from './auth/user-directory.js';
import { loadBatchHasher } from './batch-hasher.js';
import { ServerClock } from './clock.js';
import { ClusterRoster } from './cluster/roster.js';
import type { ClusterMembership } from './cluster/roster.js';
import { DevServerError } from './errors.js';
import { Broker } from './log/broker.js';
import type { DevServerOptions, ResolvedOptions } from './options.js';
import { resolveOptions } from './options.js';
import { Connection } from './server/connection.js';
import { ConnectionRegistry } from './server/connection-registry.js';
import type { ServerContext } from './server/context.js';
import { LoginGuard } from './server/login-guard.js';
import { DiskStorage } from './storage/disk-storage.js';
import { MemoryStorage } from './storage/storage.js';
import type { Storage } from './storage/storage.js';

/** A running dev server. `await using server = await startDevServer()` closes it at scope end. */
export interface DevServer extends AsyncDisposable {
  /** The port it listens on (the real one when 0 was asked). */
  readonly port: number;
  /** The interface it listens on. */
  readonly host: string;
  /** `iggy://user:password@host:port`, a connection string for clients. */
  readonly url: string;
  /** `memory` or `disk`. */
  readonly storage: 'memory' | 'disk';
  /** Open connections. */
  connectionCount(): number;
  /** Connections dropped so far, before they logged in, to make room for newer ones. */
  shedCount(): number;
  /**
   * Moves the server clock forward (broker timestamps, message expiry and personal access token
   * expiry), so tests need not sleep. It never moves back.
   */
  advanceTime(micros: bigint): void;
  /** Stops listening, drops every connection and closes the storage. Idempotent. */
  close(): Promise<void>;
}

/** Remote addresses the login guard remembers at most (a few hundred bytes each). */
const MAX_TRACKED_ADDRESSES = 10_000;

/** A host as it goes into a URL: IPv6 addresses in brackets. */
export function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** What the nodes of one in-process cluster share: the data, the clock and the id counters. */
export interface SharedNodeState {
  readonly storage: Storage;
  readonly clock: ServerClock;
  readonly broker: Broker;
  readonly startedAt: bigint;
  /** Users, permissions and tokens: cluster metadata, so one directory for every node. */
  readonly users: UserDirectory;
  /** Connection ids are unique across the nodes: group membership is keyed on them. */
  nextClientId(): number;
  nextSession(): bigint;
}

/** How a node of a declared cluster is started: the shared state and its place in the roster. */
export interface NodeBinding {
  readonly shared: SharedNodeState;
  readonly membership: ClusterMembership;
}

/** Opens the storage and the broker (a `DevServerError` of kind `storage` when that fails). */
export async function openSharedState(o: ResolvedOptions): Promise<SharedNodeState> {
  // Node only, so the WebAssembly batch hasher is allowed: admission verifies every frame. Where
  // the runtime refuses WebAssembly (node --jitless) the JavaScript checksums stay in use; any
  // other failure stops the start (see batch-hasher.ts).
  if (o.batchHashing === 'wasm') await loadBatchHasher();
  const onStorageError = (error: DevServerError): void => {
    try {
      o.onStorageError(error);
    } catch {
      // A failing reporter must not stop the periodic syncs.
    }
  };
  const storage: Storage =
    o.data === undefined
      ? new MemoryStorage()
      : new DiskStorage({ dir: o.data, fsync: o.fsync, fsyncIntervalMs: o.fsyncIntervalMs, segmentBytes: o.segmentBytes, cacheBytesPerPartition: o.cacheBytesPerPartition, onError: onStorageError, onRecovery: o.onRecovery });
  const clock = new ServerClock();
  let broker: Broker;
  try {
    broker = new Broker({ storage, clock, rebalancingTimeoutMs: o.rebalancingTimeoutMs, maxPollBytes: Math.max(1024, o.maxFrameSize - 1024 * 1024) });
  } catch (cause) {
    storage.close();
    if (DevServerError.is(cause)) throw cause;
    throw new DevServerError('storage', `cannot recover the data folder ${o.data ?? ''}`, { cause });
  }
  let users: UserDirectory;
  try {
    users = new UserDirectory({ root: { username: o.user, password: o.password }, staticTokens: o.tokens, now: () => clock.now(), saved: storage.loadUsers(), save: (s) => storage.saveUsers(s) });
  } catch (cause) {
    storage.close();
    if (DevServerError.is(cause)) throw cause;
    throw new DevServerError('storage', `cannot save the users in ${o.data ?? ''}`, { cause });
  }
  let clientIds = 0;
  let sessions = 0n;
  return {
    storage,
    clock,
    broker,
    startedAt: clock.now(),
    users,
    nextClientId: () => (clientIds = (clientIds % 0xffff_fffe) + 1),
    nextSession: () => ++sessions,
  };
}

/**
 * Starts a dev server. Rejects with a `DevServerError` (kind `invalid` for bad options, `storage`
 * for an unusable data folder) or the listen error (for example `EADDRINUSE`). It is a cluster
 * of one, always primary.
 */
export function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  return startNode(options);
}

/**
 * Starts one node: alone (no `binding`, like {@link startDevServer}), or as a node of a cluster
 * started by `startDevCluster`, on the cluster's shared state and in its roster.
 */
export async function startNode(options: DevServerOptions, binding?: NodeBinding): Promise<DevServer> {
  const o = resolveOptions(options);
  const shared = binding?.shared ?? (await openSharedState(o));
  // A node of a cluster leaves the shared storage to the cluster, which outlives its nodes.
  const closeStorage = (): void => {
    if (binding === undefined) shared.storage.close();
  };
  const { storage, clock, broker } = shared;
  let membership: ClusterMembership = binding?.membership ?? { roster: ClusterRoster.single(o.host, o.port), index: 0 };
  const connections = new ConnectionRegistry<Connection>(o.maxConnections);
  const ctx: ServerContext = {
    broker,
    startedAt: shared.startedAt,
    users: shared.users,
    limits: {
      maxFrameSize: o.maxFrameSize,
      maxPendingBytes: o.maxPendingBytes,
      maxInFlight: o.maxInFlight,
      preLoginTimeoutMs: o.preLoginTimeoutMs,
      idleTimeoutMs: o.idleTimeoutMs,
      preLoginBufferBytes: o.preLoginBufferBytes,
    },
    loginGuard: new LoginGuard({
      perConnection: o.loginFailuresPerConnection,
      perAddress: o.loginFailuresPerAddress,
      lockoutMs: o.loginLockoutMs,
      failureDelayMs: o.loginFailureDelayMs,
      maxAddresses: MAX_TRACKED_ADDRESSES,
    }),
    clientsCount: () => connections.size,
    connectedClients: () => connections.values(),
    segmentBytes: o.segmentBytes,
    nextClientId: shared.nextClientId,
    nextSession: shared.nextSession,
    connectionClosed: (clientId) => broker.disconnect(clientId),
    clusterMetadata: () => membership.roster.metadata(),
    isPrimary: () => membership.roster.isPrimary(membership.index),
    internalError: (error) => {
      try {
        o.onInternalError(error);
      } catch {
        // A failing reporter must not take the server down either.
      }
    },
  };

  const server: Server = createServer((socket: Socket) => {
    if (!connections.makeRoom()) {
      socket.destroy();
      return;
    }
    const conn = new Connection(socket, ctx, (c, authenticated) => connections.setAuthenticated(c, authenticated));
    connections.add(conn);
    socket.on('close', () => connections.delete(conn));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    closeStorage();
    throw error;
  });
  server.on('error', () => undefined);
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  if (o.heartbeatIntervalMs > 0) {
    const limit = o.heartbeatIntervalMs * 1.2;
    heartbeat = setInterval(() => {
      const now = Date.now();
      for (const c of connections.values()) {
        if (now - c.lastActivity > limit && broker.membershipsOf(c.clientId).length > 0) c.releaseStale();
      }
    }, Math.max(10, Math.min(5000, Math.floor(o.heartbeatIntervalMs / 4))));
    heartbeat.unref();
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : o.port;
  // The roster names the real listener, never the port that was asked for (0 = any).
  if (binding === undefined) membership = { roster: ClusterRoster.single(o.host, port), index: 0 };
  else membership.roster.bind(membership.index, o.host, port);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      if (heartbeat !== undefined) clearInterval(heartbeat);
      server.close(() => resolve());
      for (const c of [...connections.values()]) c.destroy();
    }).then(closeStorage));
  return {
    port,
    host: o.host,
    url: `iggy://${encodeURIComponent(o.user)}:${encodeURIComponent(o.password)}@${formatHost(o.host)}:${port}`,
    storage: storage.kind,
    connectionCount: () => connections.size,
    shedCount: () => connections.shed,
    advanceTime: (micros) => clock.advance(micros),
    close,
    [Symbol.asyncDispose]: close,
  };
}
