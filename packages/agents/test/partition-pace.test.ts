/**
 * The per-partition read schedule on a polling log (src/agent/partition-pace.ts), at its edges:
 * a partition with no rate yet, a very fast one, a clock that stands still or steps back, and an
 * idle wait shorter than any pause. Every pause stays finite and within its bounds, so a record
 * that lands during one is read at its end, and quiet mode keeps its schedule.
 */
import { describe, expect, it } from 'vitest';
import { afterRead, answered, DRAINED_PAUSE_MS, freshPace, HOT_READS, MAX_DRAINED_PAUSE_MS } from '../src/agent/partition-pace.js';

const IDLE_MS = 100;

describe('partition pace', () => {
  it('busy: a first drained read (no rate yet) waits the longest drained pause; a very fast partition the shortest', () => {
    const slow = freshPace();
    afterRead(slow, 1, false, 1_000, IDLE_MS, true);
    expect(slow.dueAt).toBe(1_000 + MAX_DRAINED_PAUSE_MS);
    const fast = freshPace();
    afterRead(fast, 1, false, 1_000, IDLE_MS, true);
    afterRead(fast, 1e9, false, 1_000.001, IDLE_MS, true);
    expect(fast.rate).toBeGreaterThan(1e9);
    expect(fast.dueAt).toBeCloseTo(1_000.001 + DRAINED_PAUSE_MS, 6);
  });

  it('busy: a clock that stands still or steps back leaves the rate as it was and every pause finite and bounded', () => {
    const pace = freshPace();
    afterRead(pace, 2, false, 500, IDLE_MS, true);
    afterRead(pace, 2, false, 504, IDLE_MS, true);
    const rate = pace.rate;
    for (const now of [504, 400, 0]) {
      afterRead(pace, 3, false, now, IDLE_MS, true);
      expect(pace.rate).toBe(rate);
      expect(pace.dueAt - now).toBeGreaterThanOrEqual(DRAINED_PAUSE_MS);
      expect(pace.dueAt - now).toBeLessThanOrEqual(MAX_DRAINED_PAUSE_MS);
      afterRead(pace, 0, false, now, IDLE_MS, true);
      expect(Number.isFinite(pace.dueAt)).toBe(true);
      expect(pace.dueAt - now).toBeLessThanOrEqual(IDLE_MS);
    }
  });

  it('every pause is capped by the consumer\'s idle wait, and a full read is followed at once', () => {
    for (const busy of [true, false]) {
      const pace = freshPace();
      afterRead(pace, 3, false, 10, 1, busy);
      expect(pace.dueAt).toBeLessThanOrEqual(11);
      for (let i = 0; i < 20; i++) {
        afterRead(pace, 0, false, 20 + i, 1, busy);
        expect(pace.dueAt).toBeLessThanOrEqual(21 + i);
      }
      afterRead(pace, 200, true, 50, IDLE_MS, busy);
      expect(pace.dueAt).toBe(0);
    }
  });

  it('quiet: one record is followed at once, several after the short pause, then HOT_READS empty reads at once; answered() makes it hot again', () => {
    const pace = freshPace();
    afterRead(pace, 1, false, 100, IDLE_MS, false);
    expect(pace.dueAt).toBe(0);
    afterRead(pace, 2, false, 101, IDLE_MS, false);
    expect(pace.dueAt).toBe(101 + DRAINED_PAUSE_MS);
    for (let i = 0; i < HOT_READS; i++) {
      afterRead(pace, 0, false, 102, IDLE_MS, false);
      expect(pace.dueAt).toBe(0);
    }
    afterRead(pace, 0, false, 102, IDLE_MS, false);
    expect(pace.dueAt).toBeGreaterThan(102);
    answered(pace, 103);
    expect(pace.dueAt).toBe(0);
    afterRead(pace, 0, false, 103, IDLE_MS, false);
    expect(pace.dueAt).toBe(0);
  });
});
