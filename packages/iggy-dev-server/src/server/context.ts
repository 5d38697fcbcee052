/** What every connection shares: the broker, credentials, limits and id counters. */

import type { CommandServer } from './commands.js';

/** Per-connection limits that bound memory. */
export interface ConnectionLimits {
  /** Largest frame accepted (bytes); a larger one closes the connection. */
  readonly maxFrameSize: number;
  /** Reading pauses while more reply bytes than this wait to be written. */
  readonly maxPendingBytes: number;
  /** Reading pauses while this many decoded requests wait to run. */
  readonly maxInFlight: number;
}

/** Shared server state handed to each connection. */
export interface ServerContext extends CommandServer {
  /** Username → password and user id. */
  readonly users: ReadonlyMap<string, { readonly password: string; readonly id: number }>;
  /** Accepted personal access tokens → user id. */
  readonly tokens: ReadonlyMap<string, number>;
  /** Limits. */
  readonly limits: ConnectionLimits;
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
