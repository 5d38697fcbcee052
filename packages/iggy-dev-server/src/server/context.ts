/** What every connection shares: the broker, the users, limits and id counters. */

import type { CommandServer } from './commands.js';
import type { LoginGuard } from './login-guard.js';

/** Per-connection limits that bound memory. */
export interface ConnectionLimits {
  /** Largest frame accepted (bytes); a larger one closes the connection. */
  readonly maxFrameSize: number;
  /** Reading pauses while more reply bytes than this wait to be written. */
  readonly maxPendingBytes: number;
  /** Reading pauses while this many decoded requests wait to run. */
  readonly maxInFlight: number;
  /** A connection not logged in after this long is closed, ms. */
  readonly preLoginTimeoutMs: number;
  /** A logged-in connection that sends no complete request for this long is closed, ms (0 = never). */
  readonly idleTimeoutMs: number;
  /** Before login, a connection holding a frame or partial frame larger than this is closed, bytes. */
  readonly preLoginBufferBytes: number;
}

/** Shared server state handed to each connection. */
export interface ServerContext extends CommandServer {
  /** Limits. */
  readonly limits: ConnectionLimits;
  /** Login-failure accounting shared by every connection. */
  readonly loginGuard: LoginGuard;
  /** A fresh connection id (u32, from 1). */
  nextClientId(): number;
  /** A fresh VSR session number (non-zero, increasing). */
  nextSession(): bigint;
  /** Reports a bug caught while handling a request. */
  internalError(error: unknown): void;
  /** Called when a connection leaves (its group memberships end). */
  connectionClosed(clientId: number): void;
  /** Whether this node is the primary of its cluster (always, without a declared cluster). */
  isPrimary(): boolean;
}
