/** Where the embedded log takes broker timestamps from; injectable so tests can move time. */
export interface LogClock {
  /** The current time in microseconds since the Unix epoch. */
  nowMicros(): bigint;
}

/** The system clock at microsecond resolution (`performance.timeOrigin + performance.now()`). */
export const systemLogClock: LogClock = Object.freeze({
  nowMicros(): bigint {
    return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
  },
});

/** A clock that moves only when told to: for expiry and timestamp tests. */
export class ManualLogClock implements LogClock {
  #now: bigint;

  /** Starts at `startMicros` (default: the system clock's current time). */
  constructor(startMicros: bigint = systemLogClock.nowMicros()) {
    this.#now = startMicros;
  }

  /** The clock's current time. */
  nowMicros(): bigint {
    return this.#now;
  }

  /** Moves the clock forward by `micros` (never backward). */
  advance(micros: bigint): void {
    if (micros > 0n) this.#now += micros;
  }
}
