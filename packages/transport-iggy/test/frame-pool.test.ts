/** The pool of large VSR send frames: reuse, size limits, and which buffers it keeps. */
import { describe, expect, it } from 'vitest';
import { FramePool } from '../src/frame-pool.js';

describe('FramePool', () => {
  it('hands a returned buffer to the next send that fits it, never to two at once', () => {
    const pool = new FramePool();
    const a = pool.take(150_000);
    expect(a.length).toBeGreaterThanOrEqual(150_000);
    const b = pool.take(150_000);
    expect(b).not.toBe(a);
    pool.give(a);
    expect(pool.take(140_000)).toBe(a);
    expect(pool.take(140_000)).not.toBe(a);
  });

  it('allocates small and huge frames normally and does not keep them', () => {
    const pool = new FramePool();
    const small = pool.take(1000);
    expect(small.length).toBe(1000);
    pool.give(small);
    const huge = pool.take(8 * 1024 * 1024);
    expect(huge.length).toBe(8 * 1024 * 1024);
    pool.give(huge);
    expect(pool.free).toBe(0);
  });

  it('keeps at most four buffers, preferring the larger ones', () => {
    const pool = new FramePool();
    const sizes = [20_000, 40_000, 80_000, 160_000, 320_000];
    const buffers = sizes.map((n) => pool.take(n));
    for (const b of buffers) pool.give(b);
    expect(pool.free).toBe(4);
    expect(pool.take(20_000)).not.toBe(buffers[0]);
  });
});
