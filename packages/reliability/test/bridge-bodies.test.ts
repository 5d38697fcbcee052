/**
 * Bridges that check first (short run): behind bridge-kit's node adapter, a 100 MB body from an
 * unauthenticated caller gets 401 or 413 within seconds without the process growing with it,
 * an authenticated one 413 at the 1 MiB cap, and a trickled body or request head 408. Long run:
 * scripts/integrity.ts.
 */
import { describe, expect, it } from 'vitest';
import { runHostileBodies } from './support/bridge-bodies.js';

describe('bridges that check first', () => {
  it('answers hostile bodies and heads with 401, 413 or 408, fast and without buffering them', async () => {
    const outcomes = await runHostileBodies(100);
    expect(outcomes).toHaveLength(10);
    for (const o of outcomes) {
      const expected = o.name.includes('slow') ? 408 : o.name.includes('unauthenticated') ? (o.name.includes('declared') ? 413 : 401) : 413;
      expect(o.status, o.name).toBe(expected);
      // Generous bounds for a loaded 2-core machine: the limits are 0.5 s and 1 MiB; the point
      // is that nothing waits for Node's 300 s default or holds 100 MB.
      expect(o.ms, o.name).toBeLessThan(10_000);
      expect(o.sentMb, o.name).toBeLessThan(64);
      expect(o.rssGrowthMb, o.name).toBeLessThan(48);
    }
  }, 120_000);
});
