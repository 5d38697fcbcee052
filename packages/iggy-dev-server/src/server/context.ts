/** What every connection shares: the broker, the users, limits and id counters. */

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
}
