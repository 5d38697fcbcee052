/**
 * Bounded, abortable waits that are woken by the writer instead of polling. A waiter sits in
 * one or more wake sets; whoever changes the state calls {@link wakeAll} on the affected set,
 * and the waiter re-checks its condition. No timer runs except the single timeout.
 */

import { watchAbort } from './abort-watch.js';
import { CancelledError, type TransportError } from './errors.js';

/** One pending wait. */
export interface Waiter {
  /** True when the awaited condition holds. */
  readonly ready: () => boolean;
  /** Settles the wait with `true`, `false` or an error, and unregisters it everywhere. */
  readonly settle: (outcome: boolean | TransportError) => void;
}

/** Wakes every waiter of a set whose condition now holds. */
export function wakeAll(set: Set<Waiter>): void {
  for (const waiter of set) if (waiter.ready()) waiter.settle(true);
}

/**
 * Waits until `ready()` holds (`true`), `timeoutMs` passes (`false`), the signal fires
 * (`CancelledError`) or the owner settles it with an error (for example on close).
 * The waiter is registered in every set of `sets` and in `owned`, and removed from all on
 * settlement.
 */
export function waitUntil(
  ready: () => boolean,
  sets: readonly Set<Waiter>[],
  owned: Set<Waiter>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (ready()) return Promise.resolve(true);
  if (timeoutMs === 0) return Promise.resolve(false);
  return new Promise<boolean>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unwatch: (() => void) | undefined;
    const waiter: Waiter = {
      ready,
      settle(outcome) {
        if (timer === undefined) return;
        clearTimeout(timer);
        timer = undefined;
        for (const set of sets) set.delete(waiter);
        owned.delete(waiter);
        unwatch?.();
        if (typeof outcome === 'boolean') resolve(outcome);
        else reject(outcome);
      },
    };
    timer = setTimeout(() => waiter.settle(ready()), timeoutMs);
    for (const set of sets) set.add(waiter);
    owned.add(waiter);
    unwatch = watchAbort(signal, () => waiter.settle(new CancelledError('the wait was aborted', { cause: signal?.reason })));
  });
}
