import { InvalidError } from '@agdx/wire';
import { watchAbort } from '@agdx/transport';
import { CancelledError } from '../errors.js';
import type { Clock } from './clock.js';

/** Checks a sleep length: a finite, non-negative number of milliseconds. */
export function checkSleepMs(ms: number): void {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new InvalidError(`sleep ms must be a non-negative finite number, got ${String(ms)}`, { context: { field: 'ms' } });
  }
}

/** The longest single timer the platform accepts; longer sleeps are chained. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The platform clock: wall time from `performance.timeOrigin + performance.now()` (microsecond
 * resolution where the runtime offers it), sleeps on `setTimeout`.
 */
export class SystemClock implements Clock {
  /** A shared instance; the clock holds no state. */
  static readonly instance: SystemClock = new SystemClock();

  /** Now, in epoch microseconds. */
  nowMicros(): bigint {
    return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
  }

  /** Runs `fire` after `ms` milliseconds (chained past the platform's longest timer); returns a cancel function. */
  timer(ms: number, fire: () => void): () => void {
    checkSleepMs(ms);
    // Every reply wait arms one: the common case takes a single timeout and nothing else.
    if (ms <= MAX_TIMER_MS) {
      const single = setTimeout(fire, ms);
      return () => clearTimeout(single);
    }
    let remaining = ms;
    let handle: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      const step = Math.min(remaining, MAX_TIMER_MS);
      remaining -= step;
      handle = setTimeout(() => (remaining > 0 ? arm() : fire()), step);
    };
    arm();
    return () => clearTimeout(handle);
  }

  /** Resolves after `ms` milliseconds; `CancelledError` when `signal` fires first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      checkSleepMs(ms);
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted === true) return Promise.reject(new CancelledError('sleep aborted', { cause: signal.reason }));
    return new Promise<void>((resolve, reject) => {
      let remaining = ms;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let unwatch: (() => void) | undefined;
      const arm = (): void => {
        const step = Math.min(remaining, MAX_TIMER_MS);
        remaining -= step;
        timer = setTimeout(() => {
          if (remaining > 0) return arm();
          unwatch?.();
          resolve();
        }, step);
      };
      unwatch = watchAbort(signal, () => {
        if (timer !== undefined) clearTimeout(timer);
        reject(new CancelledError('sleep aborted', { cause: signal?.reason }));
      });
      arm();
    });
  }
}
