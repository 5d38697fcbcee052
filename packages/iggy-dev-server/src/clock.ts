/**
 * The broker clock in microseconds since the epoch: the wall clock, as Iggy stamps records, so a
 * time a person or `agdx tail --from` passes means the same here. It reads the monotonic
 * performance clock for sub-millisecond precision, but re-anchors on `Date.now()` whenever the
 * two part by more than {@link RESYNC_MS}: the system clock was stepped, or the machine slept
 * (the monotonic clock does not count sleep). Anchored once at start, a server was left behind by
 * every such step and stamped records at times the wall clock had already passed.
 *
 * It never moves backwards: after a step back it stands still until the wall clock catches up
 * (partitions still stamp strictly increasing times). Tests move it forward with `advance()` to
 * exercise expiry and timestamp reads without sleeping.
 */

/**
 * How far (ms) the performance reading may stray from the whole-millisecond `Date.now()` before
 * it is re-anchored: beyond the error of reading both clocks, well below any step worth noticing.
 */
const RESYNC_MS = 2;

/** A microsecond clock that follows the wall clock, never moves backwards and can be pushed forward. */
export class ServerClock {
  #skew = 0n;
  /** Added to `performance.timeOrigin + performance.now()` to give the wall clock, in ms. */
  #anchorMs = 0;
  /** The latest reading, so that none is ever earlier. */
  #last = 0n;

  /** Microseconds since the Unix epoch, including any advance. */
  now(): bigint {
    const wall = Date.now();
    let ms = performance.timeOrigin + performance.now() + this.#anchorMs;
    // `Date.now()` is whole milliseconds: when the clocks agree, `ms` lies in [wall, wall + 1).
    if (ms < wall - RESYNC_MS || ms >= wall + 1 + RESYNC_MS) {
      this.#anchorMs += wall + 0.5 - ms;
      ms = wall + 0.5;
    }
    const micros = BigInt(Math.floor(ms * 1000)) + this.#skew;
    if (micros > this.#last) this.#last = micros;
    return this.#last;
  }

  /**
   * Milliseconds on the monotonic clock, including any advance: what timeouts measure (a group's
   * hand-over), since a wall-clock step must neither stretch nor cut them. Comparable only within
   * one process, so never stored.
   */
  elapsedMs(): number {
    return performance.now() + Number(this.#skew) / 1000;
  }

  /** Moves the clock forward by `micros` (≥ 0). */
  advance(micros: bigint): void {
    if (micros > 0n) this.#skew += micros;
  }
}
