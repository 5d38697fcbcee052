/**
 * Where the agent SDK reads time: epoch microseconds as unsigned 64-bit bigints, and sleeps that a
 * test can drive. Deadlines, linger and wait timeouts all go through one Clock so a TestClock makes
 * them deterministic.
 */
export interface Clock {
  /** Now, in microseconds since the Unix epoch (an unsigned 64-bit value). */
  nowMicros(): bigint;
  /**
   * Resolves after `ms` milliseconds of this clock's time; rejects with a `CancelledError` when
   * `signal` fires first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: runs `fire` after `ms` milliseconds of this clock's time and returns a function that
   * cancels it. Waits use it when present because it settles without allocating an abort reason;
   * otherwise they fall back to {@link Clock.sleep} with a signal.
   */
  timer?(ms: number, fire: () => void): () => void;
}

/** Runs `fire` after `ms` on `clock`; the returned function cancels it (idempotent). */
export function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock.timer !== undefined) return clock.timer(ms, fire);
  const controller = new AbortController();
  clock.sleep(ms, controller.signal).then(fire, () => undefined);
  return () => controller.abort(null);
}

/** 2^64 - 1: the largest epoch-microsecond value a Clock reports. */
export const U64_MAX: bigint = (1n << 64n) - 1n;
