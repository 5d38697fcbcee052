/**
 * The pauses of a connection that lost its server: between passes over the known addresses
 * (exponential, jittered) and before reconnecting after a "not the primary" refusal (doubling
 * with each refusal in a row).
 */

import type { ResolvedIggyOptions } from '../options.js';

/** The shortest pause between passes over a cluster's addresses, so a search never spins. */
export const MIN_CLUSTER_PAUSE_MS = 10;

/** The pause before a search's second pass. */
export function firstPassDelay(initialDelayMs: number, clustered: boolean): number {
  return clustered ? Math.max(MIN_CLUSTER_PAUSE_MS, initialDelayMs) : initialDelayMs;
}

/** Up to 20 % jitter, so clients cut off together do not return in lockstep; never past `leftMs`. */
export function jittered(delayMs: number, leftMs: number): number {
  return Math.min(leftMs, Math.round(delayMs * (0.8 + Math.random() * 0.2)));
}

/** The pause after `delayMs`: doubled, capped by `maxDelayMs` (in a cluster, never under the minimum). */
export function nextPassDelay(delayMs: number, maxDelayMs: number, clustered: boolean): number {
  return Math.min(Math.max(maxDelayMs, clustered ? MIN_CLUSTER_PAUSE_MS : 0), Math.max(1, delayMs * 2));
}

/**
 * The pause before reconnecting after `streak` 58 refusals in a row: the same node may be named
 * leader again at once, so the retries are paced, doubling up to `maxDelayMs`.
 */
export function refusalPause(options: Pick<ResolvedIggyOptions, 'initialDelayMs' | 'maxDelayMs'>, streak: number): number {
  const { initialDelayMs, maxDelayMs } = options;
  const base = Math.max(MIN_CLUSTER_PAUSE_MS, initialDelayMs);
  return Math.min(Math.max(maxDelayMs, base), base * 2 ** Math.min(streak - 1, 16));
}

/**
 * The pause between connection attempts, ended early by `closing` (the connection's close()).
 * Between attempts there is no socket to keep the process alive, yet a caller is waiting
 * (connect() itself, or queued calls): the timer must hold the event loop open, or a script
 * awaiting the connection would end silently mid-wait. Once closed, nothing waits any more, so
 * nothing may hold it.
 */
export function pauseUntilClosed(ms: number, closing: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (closing.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      closing.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    closing.addEventListener('abort', done, { once: true });
  });
}
