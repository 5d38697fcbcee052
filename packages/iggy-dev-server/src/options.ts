/** Options of the dev server, their defaults and their checks. */

import { DevServerError } from './errors.js';
import type { FsyncPolicy } from './storage/disk-storage.js';
import type { RecoveryNotice } from './storage/recovery-notice.js';

/** Options of {@link startDevServer}. Every field is optional. */
export interface DevServerOptions {
  /** TCP port; 0 (the default) picks a free ephemeral port. */
  readonly port?: number | undefined;
  /** Interface to listen on (default `127.0.0.1`). */
  readonly host?: string | undefined;
  /** Data folder; absent keeps everything in memory. */
  readonly data?: string | undefined;
  /** Root user name (default `iggy`; 3..50 bytes). */
  readonly user?: string | undefined;
  /** Root password (default `iggy`; 3..100 bytes). */
  readonly password?: string | undefined;
  /** With `data`: when appends reach the disk (default `always`). */
  readonly fsync?: FsyncPolicy | undefined;
  /** With fsync `interval`: the period in ms (default 1000). */
  readonly fsyncIntervalMs?: number | undefined;
  /** With `data`: segment size limit in bytes (default 64 MiB). */
  readonly segmentBytes?: number | undefined;
  /**
   * With `data`: record bytes kept in memory per partition (default 16 MiB); older records are
   * read back from the segment files when polled.
   */
  readonly cacheBytesPerPartition?: number | undefined;
  /** Static tokens that log in as the root user, never listed and never expiring (default none). */
  readonly tokens?: readonly string[] | undefined;
  /**
   * How VSR message batches are hashed when admitted (every frame checksum is verified):
   * `wasm` (default) loads the WebAssembly batch hasher of `@agdx/iggy-protocol`; `javascript`
   * keeps to its JavaScript hashing, as on a runtime that forbids WebAssembly. Once something in
   * the process has loaded the WebAssembly hasher (an embedding client, another server), it stays
   * on, whatever this says.
   */
  readonly batchHashing?: BatchHashing | undefined;
  /** Largest frame a connection may send, bytes (default 64 MiB, Iggy's limit). */
  readonly maxFrameSize?: number | undefined;
  /** Reading pauses while a connection has more reply bytes than this waiting (default 8 MiB). */
  readonly maxPendingBytes?: number | undefined;
  /** Reading pauses while a connection has this many requests waiting (default 256). */
  readonly maxInFlight?: number | undefined;
  /**
   * Open connections at most (default 1024). When full, the oldest connection that has not
   * logged in is dropped to make room; a new connection is refused only when every slot is
   * held by a logged-in client.
   */
  readonly maxConnections?: number | undefined;
  /** A connection that has not logged in after this long is closed, ms (default 10,000). */
  readonly preLoginTimeoutMs?: number | undefined;
  /**
   * A logged-in connection that sends no complete request for this long is closed, ms
   * (default 300,000; 0 = never). Clients that heartbeat (every Iggy SDK) are never idle.
   */
  readonly idleTimeoutMs?: number | undefined;
  /**
   * Before login, a connection holding more than this many bytes of frames or partial frames
   * is closed (default 4 KiB; a login request is a few hundred bytes). After login the limit
   * is `maxFrameSize`.
   */
  readonly preLoginBufferBytes?: number | undefined;
  /** Failed logins after which a connection is closed (default 3). */
  readonly loginFailuresPerConnection?: number | undefined;
  /**
   * Failed logins from one remote address within `loginLockoutMs` after which that address is
   * refused (status 58, "send it again later") without a credential check, until the window
   * passes (default 10).
   */
  readonly loginFailuresPerAddress?: number | undefined;
  /** How long login failures are remembered and a lockout lasts, ms (default 60,000). */
  readonly loginLockoutMs?: number | undefined;
  /**
   * The answer to a failed login is held back this long, doubling with each recent failure
   * from the same address up to 16× (default 100 ms; 0 = answer at once).
   */
  readonly loginFailureDelayMs?: number | undefined;
  /** A cooperative partition hand-over is forced after this long, ms (default 30,000, as Iggy). */
  readonly rebalancingTimeoutMs?: number | undefined;
  /**
   * Iggy's heartbeat interval, ms (default 30,000; 0 turns it off). A connection that holds a
   * consumer-group membership and sends nothing for 1.2 × this long is released (VSR: eviction
   * StaleClient), and its partitions go to the other members.
   */
  readonly heartbeatIntervalMs?: number | undefined;
  /**
   * Called when handling a request threw something other than an Iggy refusal (a bug): the
   * connection is dropped and the server goes on. Default: ignore.
   */
  readonly onInternalError?: ((error: unknown) => void) | undefined;
  /**
   * Called with a `DevServerError` of kind `storage` when a background write fails (with fsync
   * `interval`, a periodic sync that failed; it is retried on the next tick and at close).
   * Default: ignore.
   */
  readonly onStorageError?: ((error: DevServerError) => void) | undefined;
  /**
   * With `data`: called while the folder is opened, once per partition whose torn tail recovery
   * cut (a record a crash left half-written, or bytes that are not a record), with what was
   * dropped. Every whole record before it is kept. Default: ignore.
   */
  readonly onRecovery?: ((notice: RecoveryNotice) => void) | undefined;
}

/** How the server hashes VSR message batches (see {@link DevServerOptions.batchHashing}). */
export type BatchHashing = 'wasm' | 'javascript';

/** The options with every default applied. */
export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly data: string | undefined;
  readonly user: string;
  readonly password: string;
  readonly fsync: FsyncPolicy;
  readonly fsyncIntervalMs: number;
  readonly segmentBytes: number;
  readonly cacheBytesPerPartition: number;
  readonly tokens: readonly string[];
  readonly batchHashing: BatchHashing;
  readonly maxFrameSize: number;
  readonly maxPendingBytes: number;
  readonly maxInFlight: number;
  readonly maxConnections: number;
  readonly preLoginTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly preLoginBufferBytes: number;
  readonly loginFailuresPerConnection: number;
  readonly loginFailuresPerAddress: number;
  readonly loginLockoutMs: number;
  readonly loginFailureDelayMs: number;
  readonly rebalancingTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly onInternalError: (error: unknown) => void;
  readonly onStorageError: (error: DevServerError) => void;
  readonly onRecovery: (notice: RecoveryNotice) => void;
}

const utf8 = new TextEncoder();

function integer(value: number | undefined, fallback: number, min: number, max: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min || v > max) throw new DevServerError('invalid', `${name} must be an integer in ${min}..${max}, got ${String(value)}`);
  return v;
}

function text(value: string | undefined, fallback: string, min: number, max: number, name: string): string {
  const v = value ?? fallback;
  const length = typeof v === 'string' ? utf8.encode(v).length : -1;
  if (length < min || length > max) throw new DevServerError('invalid', `${name} must be ${min}..${max} UTF-8 bytes`);
  return v;
}

/** Applies defaults and checks every option (a `DevServerError` of kind `invalid` otherwise). */
export function resolveOptions(options: DevServerOptions = {}): ResolvedOptions {
  const fsync = options.fsync ?? 'always';
  if (fsync !== 'always' && fsync !== 'interval' && fsync !== 'never') throw new DevServerError('invalid', `fsync must be always, interval or never, got ${String(fsync)}`);
  if (options.data !== undefined && (typeof options.data !== 'string' || options.data.length === 0)) throw new DevServerError('invalid', 'data must be a folder path');
  const tokens = options.tokens ?? [];
  for (const t of tokens) text(t, '', 1, 255, 'a token');
  const batchHashing = options.batchHashing ?? 'wasm';
  if (batchHashing !== 'wasm' && batchHashing !== 'javascript') throw new DevServerError('invalid', `batchHashing must be wasm or javascript, got ${String(batchHashing)}`);
  return {
    port: integer(options.port, 0, 0, 65535, 'port'),
    host: text(options.host, '127.0.0.1', 1, 255, 'host'),
    data: options.data,
    user: text(options.user, 'iggy', 3, 50, 'user'),
    password: text(options.password, 'iggy', 3, 100, 'password'),
    fsync,
    fsyncIntervalMs: integer(options.fsyncIntervalMs, 1000, 1, 3_600_000, 'fsyncIntervalMs'),
    segmentBytes: integer(options.segmentBytes, 64 * 1024 * 1024, 4096, 1024 * 1024 * 1024, 'segmentBytes'),
    cacheBytesPerPartition: integer(options.cacheBytesPerPartition, 16 * 1024 * 1024, 0, 2 ** 40, 'cacheBytesPerPartition'),
    tokens,
    batchHashing,
    maxFrameSize: integer(options.maxFrameSize, 64 * 1024 * 1024, 1024, 0xffff_ffff, 'maxFrameSize'),
    maxPendingBytes: integer(options.maxPendingBytes, 8 * 1024 * 1024, 1024, 2 ** 40, 'maxPendingBytes'),
    maxInFlight: integer(options.maxInFlight, 256, 1, 1_000_000, 'maxInFlight'),
    maxConnections: integer(options.maxConnections, 1024, 1, 1_000_000, 'maxConnections'),
    preLoginTimeoutMs: integer(options.preLoginTimeoutMs, 10_000, 1, 2_147_483_647, 'preLoginTimeoutMs'),
    idleTimeoutMs: integer(options.idleTimeoutMs, 300_000, 0, 2_147_483_647, 'idleTimeoutMs'),
    preLoginBufferBytes: integer(options.preLoginBufferBytes, 4096, 512, 1024 * 1024, 'preLoginBufferBytes'),
    loginFailuresPerConnection: integer(options.loginFailuresPerConnection, 3, 1, 1_000_000, 'loginFailuresPerConnection'),
    loginFailuresPerAddress: integer(options.loginFailuresPerAddress, 10, 1, 1_000_000, 'loginFailuresPerAddress'),
    loginLockoutMs: integer(options.loginLockoutMs, 60_000, 1, 86_400_000, 'loginLockoutMs'),
    loginFailureDelayMs: integer(options.loginFailureDelayMs, 100, 0, 60_000, 'loginFailureDelayMs'),
    rebalancingTimeoutMs: integer(options.rebalancingTimeoutMs, 30_000, 0, 2_147_483_647, 'rebalancingTimeoutMs'),
    heartbeatIntervalMs: integer(options.heartbeatIntervalMs, 30_000, 0, 86_400_000, 'heartbeatIntervalMs'),
    onInternalError: options.onInternalError ?? (() => undefined),
    onStorageError: options.onStorageError ?? (() => undefined),
    onRecovery: options.onRecovery ?? (() => undefined),
  };
}
