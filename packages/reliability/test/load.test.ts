/**
 * Load, short run: 2 agents × 4 concurrent sessions, streamed answers of 8 chunks, for 3 s on
 * the in-memory log and 3 s over TCP to the dev server. Asserts completion without errors and a
 * bounded live heap; speed is reported by scripts/load.ts, never asserted.
 */
import { describe, expect, it } from 'vitest';
import { runLoad } from './support/load-scenario.js';

describe('load: agents × concurrent sessions with streamed answers', () => {
  for (const transport of ['memory', 'iggy'] as const) {
    it(`${transport}: every request answered, no error, live heap bounded`, async () => {
      const report = await runLoad({ transport, agents: 2, sessionsPerAgent: 4, chunksPerAnswer: 8, durationMs: 3_000, partitions: 4, sampleEveryMs: 250 });
      expect(report.errorSamples).toEqual([]);
      expect(report.errors).toBe(0);
      expect(report.requests).toBeGreaterThan(8);
      expect(report.latencyMs.count).toBe(report.requests);
      // A leak of even a few KB per request would show in the live heap between the quarters.
      expect(report.memory.heapLastQuarterMb - report.memory.heapSecondQuarterMb).toBeLessThan(32);
    });
  }
});
