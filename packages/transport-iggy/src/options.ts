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
    host,
    port,
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
