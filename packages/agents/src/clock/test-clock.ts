import { InvalidError } from '@agdx/wire';
import { CancelledError } from '../errors.js';
import { U64_MAX, type Clock } from './clock.js';
import { checkSleepMs } from './system-clock.js';

const WRAP = U64_MAX + 1n;

function checkU64(value: unknown, field: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) value = BigInt(value);
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) {
    throw new InvalidError(`${field} must be an unsigned 64-bit integer of microseconds`, { context: { field } });
  }
  return value;
}

interface Sleeper {
  readonly due: bigint;
  readonly resolve: () => void;
}

/**
 * A clock that moves only when told to. `nowMicros()` wraps at the u64 ceiling like the reference
 * SDK's; sleepers are measured on a separate, never-wrapping elapsed counter so a wrap cannot
 * wake or strand them.
 */
export class TestClock implements Clock {
  #now: bigint;
  #elapsed = 0n;
  #sleepers: Sleeper[] = [];

  /**
   * Starts at `startMicros` (default 0).
   * @throws InvalidError when the start is not a bigint (or safe integer) within 0..2^64-1.
   */
  constructor(startMicros: bigint = 0n) {
    this.#now = checkU64(startMicros, 'TestClock start');
  }

  /** The current time in epoch microseconds. */
  nowMicros(): bigint {
    return this.#now;
  }

  /**
   * Moves the clock forward by `byMicros` (wrapping past 2^64-1 to 0) and wakes every sleeper
   * whose time has come.
   * @throws InvalidError when `byMicros` is negative or beyond u64.
   */
  advance(byMicros: bigint | number): void {
    const by = checkU64(byMicros, 'advance');
    this.#now = (this.#now + by) % WRAP;
    this.#elapsed += by;
    this.#wake();
  }

  /** Advances by whole milliseconds (a convenience over {@link TestClock.advance}). */
  advanceMs(ms: number): void {
    checkSleepMs(ms);
    this.advance(BigInt(Math.round(ms * 1000)));
  }

  /**
   * Jumps to `nowMicros`. Moving backwards is allowed (sleepers keep their due time on the
   * elapsed counter, which only moves forward).
   * @throws InvalidError outside 0..2^64-1.
   */
  set(nowMicros: bigint | number): void {
    const next = checkU64(nowMicros, 'set');
    if (next > this.#now) this.#elapsed += next - this.#now;
    this.#now = next;
    this.#wake();
  }

  /** Number of pending sleeps (lets a test wait until the code under test is parked). */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }

  /** Runs `fire` once the clock has been advanced `ms` past now; returns a cancel function. */
  timer(ms: number, fire: () => void): () => void {
    checkSleepMs(ms);
    if (ms === 0) {
      queueMicrotask(fire);
      return () => undefined;
    }
    const sleeper: Sleeper = { due: this.#elapsed + BigInt(Math.ceil(ms * 1000)), resolve: fire };
    this.#sleepers.push(sleeper);
    return () => {
      this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
    };
  }

  /** Resolves once the clock has been advanced `ms` past now; `CancelledError` on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      checkSleepMs(ms);
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted === true) return Promise.reject(new CancelledError('sleep aborted', { cause: signal.reason }));
    const due = this.#elapsed + BigInt(Math.ceil(ms * 1000));
    if (ms === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        due,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(new CancelledError('sleep aborted', { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  #wake(): void {
    const ready = this.#sleepers.filter((s) => s.due <= this.#elapsed);
    if (ready.length === 0) return;
    this.#sleepers = this.#sleepers.filter((s) => s.due > this.#elapsed);
    for (const s of ready) s.resolve();
  }
}
