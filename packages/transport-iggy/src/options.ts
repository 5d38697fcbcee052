/// <reference types="node" preserve="true" />
/**
 * Connection options of the Iggy transport and their defaults. Every duration is in
 * milliseconds; every retry is bounded.
 */

import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import { InvalidArgumentError } from '@agdx/transport';

/** Which protocol generation to speak: `vsr` (Iggy 0.9 line, the default) or `classic` (0.7/0.8). */
export type IggyWireProtocol = 'vsr' | 'classic';

/** How lost connections are re-established. */
export interface ReconnectPolicy {
  /** Connection attempts per (re)connect, at least 1 (default 5). */
  readonly maxAttempts?: number | undefined;
  /** Wait before the second attempt (default 100 ms); doubles per attempt. */
  readonly initialDelayMs?: number | undefined;
  /** Upper bound of the wait between attempts (default 2,000 ms). */
  readonly maxDelayMs?: number | undefined;
}

/** A server address. */
export interface IggyEndpoint {
  /** Host name or IP address. */
  readonly host: string;
  /** TCP port (default: the `port` option, else 8090). */
  readonly port?: number | undefined;
}

/** How the client finds the primary of an Iggy cluster. */
export interface ClusterPolicy {
  /**
   * Read the cluster metadata (GetClusterMetadata) after every login and move to the node it
   * names leader (default `true`). A server that refuses the command, or a roster of one node,
   * keeps the client where it is.
   */
  readonly discover?: boolean | undefined;
  /**
   * With more than one known node: the longest a (re)connect may spend finding a primary,
   * seeds, redirects, leaderless rosters and back-off included (default 15,000 ms); it takes
   * the place of `reconnect.maxAttempts` there, since an election answers "no leader yet"
   * quickly for seconds. After it, the connect fails with a `transport` error naming every
   * address tried.
   */
  readonly failoverTimeoutMs?: number | undefined;
}

/** Username and password, or a personal access token. */
export type IggyCredentials =
  | { readonly username: string; readonly password: string }
  | { readonly token: string };

/** Everything {@link IggyTransport.connect} accepts besides a connection string. */
export interface IggyTransportOptions {
  /** Server host (default `127.0.0.1`). */
  readonly host?: string | undefined;
  /** Server TCP port (default 8090). */
  readonly port?: number | undefined;
  /**
   * Seed addresses of a cluster, tried in order (default: `host`/`port` alone). When given,
   * `host` is ignored and `port` is the default port of seeds that name none.
   */
  readonly seeds?: readonly IggyEndpoint[] | undefined;
  /** Cluster discovery and failover. */
  readonly cluster?: ClusterPolicy | undefined;
  /** Credentials (default `iggy` / `iggy`, the servers' test credentials). */
  readonly credentials?: IggyCredentials | undefined;
  /** Protocol generation (default `vsr`). */
  readonly protocol?: IggyWireProtocol | undefined;
  /** `true` for TLS with Node's defaults, or node:tls connection options (`ca`, `servername`, ...). */
  readonly tls?: boolean | TlsConnectionOptions | undefined;
  /** Time to open the socket and log in (default 10,000 ms). */
  readonly connectTimeoutMs?: number | undefined;
  /** Default time limit of every request, queueing included (default 30,000 ms). */
  readonly requestTimeoutMs?: number | undefined;
  /** Send a Ping after this much idle time (default 5,000 ms; 0 turns heartbeats off). */
  readonly heartbeatIntervalMs?: number | undefined;
  /** Reconnection after a lost connection. */
  readonly reconnect?: ReconnectPolicy | undefined;
  /** First and largest pause of the polling loop behind `waitFor` (default 10 and 200 ms). */
  readonly waitPollMs?: { readonly min?: number | undefined; readonly max?: number | undefined } | undefined;
  /** Name and version sent to a VSR server at Register (default `agdx-transport-iggy`). */
  readonly clientName?: string | undefined;
  /**
   * Shared connections the transport spreads its calls over, least busy first (default 1,
   * at most 64). VSR allows one request in flight per connection, so more connections let
   * concurrent calls overlap. Group members always get their own connection.
   */
  readonly connections?: number | undefined;
}

/** The options with every default filled in. */
export interface ResolvedIggyOptions {
  /** Server host. */
  readonly host: string;
  /** Server port. */
  readonly port: number;
  /** Seed addresses, in order, each with its port (at least one: `host`/`port`). */
  readonly seeds: readonly { readonly host: string; readonly port: number }[];
  /** Read cluster metadata after login and settle on the leader. */
  readonly discoverCluster: boolean;
  /** Time limit of finding a primary when more than one node is known. */
  readonly failoverTimeoutMs: number;
  /** Credentials. */
  readonly credentials: IggyCredentials;
  /** Protocol generation. */
  readonly protocol: IggyWireProtocol;
  /** TLS options, `undefined` for plain TCP. */
  readonly tls: TlsConnectionOptions | undefined;
  /** Connect and login time limit. */
  readonly connectTimeoutMs: number;
  /** Default request time limit. */
  readonly requestTimeoutMs: number;
  /** Heartbeat idle interval, 0 = off. */
  readonly heartbeatIntervalMs: number;
  /** Attempts per (re)connect. */
  readonly maxAttempts: number;
  /** First back-off. */
  readonly initialDelayMs: number;
  /** Largest back-off. */
  readonly maxDelayMs: number;
  /** First wait-poll pause. */
  readonly waitMinMs: number;
  /** Largest wait-poll pause. */
  readonly waitMaxMs: number;
  /** SDK name sent at Register. */
  readonly clientName: string;
  /** Shared connections. */
  readonly connections: number;
}

function duration(value: number | undefined, fallback: number, field: string, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > 2_147_483_647) {
    throw new InvalidArgumentError(`${field} must be a number of milliseconds ${min}..2147483647`, { context: { [field]: value } });
  }
  return Math.floor(value);
}

/** The most seed addresses a client accepts. */
export const MAX_SEEDS = 32;

function resolveSeeds(seeds: readonly IggyEndpoint[] | undefined, host: string, port: number): Array<{ host: string; port: number }> {
  if (seeds === undefined) return [{ host, port }];
  if (!Array.isArray(seeds) || seeds.length === 0 || seeds.length > MAX_SEEDS) throw new InvalidArgumentError(`seeds must be 1..${MAX_SEEDS} addresses`);
  return seeds.map((seed: IggyEndpoint) => {
    if (typeof seed !== 'object' || seed === null || typeof seed.host !== 'string' || seed.host.length === 0) throw new InvalidArgumentError('each seed needs a non-empty host');
    const p = seed.port ?? port;
    if (!Number.isInteger(p) || p < 1 || p > 65535) throw new InvalidArgumentError('a seed port must be an integer 1..65535', { context: { port: p } });
    return { host: seed.host, port: p };
  });
}

/** Checks the options and fills in the defaults. */
export function resolveOptions(options: IggyTransportOptions): ResolvedIggyOptions {
  const protocol = options.protocol ?? 'vsr';
  if (protocol !== 'vsr' && protocol !== 'classic') {
    throw new InvalidArgumentError("protocol must be 'vsr' or 'classic'", { context: { protocol } });
  }
  const port = options.port ?? 8090;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidArgumentError('port must be an integer 1..65535', { context: { port } });
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host.length === 0) throw new InvalidArgumentError('host must be a non-empty string');
  const seeds = resolveSeeds(options.seeds, host, port);
  const first = seeds[0] as { host: string; port: number };
  const discover = options.cluster?.discover ?? true;
  if (typeof discover !== 'boolean') throw new InvalidArgumentError('cluster.discover must be a boolean');
  const credentials = options.credentials ?? { username: 'iggy', password: 'iggy' };
  if ('token' in credentials ? typeof credentials.token !== 'string' || credentials.token.length === 0 : typeof credentials.username !== 'string' || typeof credentials.password !== 'string') {
    throw new InvalidArgumentError('credentials must be { username, password } or { token }');
  }
  const tls = options.tls === undefined || options.tls === false ? undefined : options.tls === true ? {} : options.tls;
  const reconnect = options.reconnect ?? {};
  const maxAttempts = reconnect.maxAttempts ?? 5;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 1000) {
    throw new InvalidArgumentError('reconnect.maxAttempts must be an integer 1..1000', { context: { maxAttempts } });
  }
  const waitMinMs = duration(options.waitPollMs?.min, 10, 'waitPollMs.min', 1);
  const connections = options.connections ?? 1;
  if (!Number.isInteger(connections) || connections < 1 || connections > 64) {
    throw new InvalidArgumentError('connections must be an integer 1..64', { context: { connections } });
  }
  return {
    host: first.host,
    port: first.port,
    seeds,
    discoverCluster: discover,
    failoverTimeoutMs: duration(options.cluster?.failoverTimeoutMs, 15_000, 'cluster.failoverTimeoutMs', 1),
    credentials,
    protocol,
    tls,
    connectTimeoutMs: duration(options.connectTimeoutMs, 10_000, 'connectTimeoutMs', 1),
    requestTimeoutMs: duration(options.requestTimeoutMs, 30_000, 'requestTimeoutMs', 1),
    heartbeatIntervalMs: duration(options.heartbeatIntervalMs, 5_000, 'heartbeatIntervalMs'),
    maxAttempts,
    initialDelayMs: duration(reconnect.initialDelayMs, 100, 'reconnect.initialDelayMs'),
    maxDelayMs: duration(reconnect.maxDelayMs, 2_000, 'reconnect.maxDelayMs'),
    waitMinMs,
    waitMaxMs: Math.max(waitMinMs, duration(options.waitPollMs?.max, 200, 'waitPollMs.max', 1)),
    clientName: options.clientName ?? 'agdx-transport-iggy',
    connections,
  };
}
