/**
 * Bringing a lost connection back: pace the reconnect after "not the primary" refusals, find a
 * node and log in, run the owner's restore hooks (group re-joins) before queued calls go out,
 * and start over when the connection is lost again mid-restore, within the policy's attempts.
 * When the attempts run out, queued calls fail at once and the next call starts a fresh cycle.
 */

import { TransportFailureError } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';
import { toTransportError } from '../error-mapping.js';
import { isOutcomeUnknown } from '../outcome-unknown.js';
import type { ResolvedIggyOptions } from '../options.js';
import { refusalPause } from './backoff.js';
import type { ConnectionState } from './state.js';

/** What the reconnect loop needs from the connection it brings back. */
export interface ReconnectHost {
  readonly options: ResolvedIggyOptions;
  /** The connection's state now. */
  state(): ConnectionState;
  /** Moves the connection to `state`. */
  enter(state: ConnectionState): void;
  /** 58 refusals in a row since the last answered request. */
  refusalStreak(): number;
  /** The pause before reconnecting, ended early by close(). */
  pause(ms: number): Promise<void>;
  /** Finds a node that serves and logs in (throws when the policy's attempts run out). */
  establish(): Promise<void>;
  /** Logged in again: counts the reconnect. */
  reconnected(): void;
  /** The hooks to run, in order, after each re-login and before queued calls go out. */
  restoreHooks(): readonly (() => Promise<void>)[];
  /** Writes the queued calls. */
  pump(): void;
  /** Gave up: drops the socket, records `failure` and fails every queued and written call with it. */
  giveUp(failure: TransportError): void;
}

/** Runs at most one reconnect at a time for its connection. */
export class ReconnectLoop {
  readonly #host: ReconnectHost;
  #running: Promise<void> | undefined;

  /** A loop for the connection `host` describes. */
  constructor(host: ReconnectHost) {
    this.#host = host;
  }

  /** Starts a reconnect if the connection is down and none runs yet. */
  start(): void {
    if (this.#running !== undefined || this.#host.state() !== 'down') return;
    this.#running = this.#run();
  }

  async #run(): Promise<void> {
    const host = this.#host;
    try {
      host.enter('connecting');
      const streak = host.refusalStreak();
      if (streak > 0) {
        // After a 58 the same node may be named leader again at once: pace the retries.
        await host.pause(refusalPause(host.options, streak));
        if (host.state() === 'closed') return;
      }
      for (let cycle = 1; ; cycle++) {
        await host.establish();
        host.reconnected();
        host.enter('restoring');
        try {
          for (const hook of host.restoreHooks()) await hook();
          break;
        } catch (error) {
          // Lost again while restoring (the loss marked it down): start over, within the policy's
          // attempts, instead of failing the calls queued behind the restore.
          if (host.state() !== 'down' || cycle >= host.options.maxAttempts) throw error;
          host.enter('connecting');
        }
      }
      if (host.state() === 'restoring') host.enter('ready');
      host.pump();
    } catch (error) {
      if (host.state() === 'closed') return;
      // Queued calls were never written: whatever the restore's own outcome, theirs is known.
      host.giveUp(
        isOutcomeUnknown(error)
          ? new TransportFailureError('the Iggy connection was lost again while restoring its state after a reconnect', { cause: error })
          : toTransportError(error),
      );
    } finally {
      // Reset before the failed calls' handlers run, so a call they make starts a fresh cycle.
      this.#running = undefined;
    }
  }
}
