/**
 * The broker clock in microseconds since the epoch. Tests move it forward with `advance()` to
 * exercise expiry and timestamp reads without sleeping; it never moves backwards.
 */

/** A microsecond clock that can be pushed forward. */
export class ServerClock {
  #skew = 0n;

  /** Microseconds since the Unix epoch, including any advance. */
  now(): bigint {
    const ms = performance.timeOrigin + performance.now();
    return BigInt(Math.floor(ms * 1000)) + this.#skew;
  }

  /** Moves the clock forward by `micros` (≥ 0). */
  advance(micros: bigint): void {
    if (micros > 0n) this.#skew += micros;
  }
}
