/**
 * The broker clock follows the wall clock when the system clock is stepped or the machine
 * sleeps (the monotonic clock stops counting then), and never moves backwards. Both clocks are
 * driven by hand: `Date.now()` is the wall clock, `performance.now()` the monotonic one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerClock } from '../src/clock.js';

const HOUR_MS = 3_600_000;

/** Where the fake monotonic clock starts, in ms since the epoch (whole, so sums stay exact). */
const ORIGIN_MS = 1_796_000_000_000;

/**
 * Hand-driven clocks: `wall` is the true time in ms, `mono` the monotonic reading. Steps are
 * multiples of 1/8 ms, which doubles near 1.8e12 hold exactly.
 */
function clocks(): { wallStep: (ms: number) => void; pass: (ms: number) => void; wallMicros: () => bigint } {
  let mono = 1_000;
  let wall = ORIGIN_MS + mono;
  Object.defineProperty(performance, 'timeOrigin', { value: ORIGIN_MS, configurable: true });
  vi.spyOn(performance, 'now').mockImplementation(() => mono);
  vi.spyOn(Date, 'now').mockImplementation(() => Math.floor(wall));
  return {
    wallStep: (ms) => void (wall += ms),
    pass: (ms) => {
      mono += ms;
      wall += ms;
    },
    wallMicros: () => BigInt(wall * 1000),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
  // The own property shadowed the prototype's getter.
  delete (performance as { timeOrigin?: number }).timeOrigin;
});

describe('ServerClock', () => {
  it('reads the wall clock to the microsecond while the clocks agree', () => {
    const c = clocks();
    const clock = new ServerClock();
    c.pass(0.375);
    expect(clock.now()).toBe(c.wallMicros());
    c.pass(0.5);
    expect(clock.now()).toBe(c.wallMicros());
  });

  it('follows a wall clock stepped forward, as after a sleep, instead of staying behind', () => {
    const c = clocks();
    const clock = new ServerClock();
    const before = clock.now();
    c.wallStep(HOUR_MS);
    const after = clock.now();
    // Re-anchored on the whole millisecond Date.now() reports: within a millisecond of the wall.
    expect(after - c.wallMicros()).toBeGreaterThanOrEqual(-1000n);
    expect(after - c.wallMicros()).toBeLessThanOrEqual(1000n);
    expect(after - before).toBeGreaterThan(BigInt(HOUR_MS - 1) * 1000n);
    // From there it runs on the monotonic clock again, to the microsecond.
    c.pass(3.25);
    expect(clock.now() - after).toBe(3250n);
  });

  it('stands still after a step back until the wall clock catches up, never reading earlier', () => {
    const c = clocks();
    const clock = new ServerClock();
    c.pass(5);
    const before = clock.now();
    c.wallStep(-HOUR_MS);
    expect(clock.now()).toBe(before);
    c.pass(HOUR_MS / 2);
    expect(clock.now()).toBe(before);
    c.pass(HOUR_MS / 2 + 10);
    const caughtUp = clock.now();
    expect(caughtUp).toBeGreaterThan(before);
    expect(caughtUp - c.wallMicros()).toBeLessThanOrEqual(1000n);
  });

  it('ignores a disagreement within the resync bound (reading error), keeping microseconds', () => {
    const c = clocks();
    const clock = new ServerClock();
    c.wallStep(1.5);
    const first = clock.now();
    c.pass(0.125);
    expect(clock.now() - first).toBe(125n);
  });

  it('adds what advance() moved it forward by, and no negative advance', () => {
    const c = clocks();
    const clock = new ServerClock();
    const start = clock.now();
    clock.advance(2_000_000n);
    clock.advance(-5n);
    expect(clock.now() - start).toBe(2_000_000n);
    c.pass(1);
    expect(clock.now() - start).toBe(2_001_000n);
  });
  it('measures timeouts on the monotonic clock: a wall-clock step neither stretches nor cuts them, advance() moves them', () => {
    const c = clocks();
    const clock = new ServerClock();
    const start = clock.elapsedMs();
    c.wallStep(-HOUR_MS);
    c.pass(250);
    expect(clock.elapsedMs() - start).toBe(250);
    c.wallStep(2 * HOUR_MS);
    expect(clock.elapsedMs() - start).toBe(250);
    clock.advance(1_000_000n);
    expect(clock.elapsedMs() - start).toBe(1250);
  });
});
