/**
 * Load, short run: 2 agents × 4 concurrent sessions, streamed answers of 8 chunks, for 3 s on
 * the in-memory log and over TCP to the dev server in a child process. Asserts completion
 * without errors, and over TCP (where the log lives in another process) a live heap that does
 * not grow. Speed is reported by scripts/load.ts, never asserted. The in-memory log keeps every
 * record in this process, so its heap grows by design and is not asserted.
 */
import { describe, expect, it } from 'vitest';
import { runLoad } from './support/load-scenario.js';

describe('load: agents × concurrent sessions with streamed answers', () => {
  it('memory: every request answered, no error', async () => {
    const report = await runLoad({ transport: 'memory', agents: 2, sessionsPerAgent: 4, chunksPerAnswer: 8, durationMs: 3_000, partitions: 4, sampleEveryMs: 250, forceGc: false });
    expect(report.errorSamples).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.requests).toBeGreaterThan(8);
    expect(report.latencyMs.count).toBe(report.requests);
  });

  it('iggy: every request answered, no error, live heap flat', async () => {
    const report = await runLoad({ transport: 'iggy', serverInChild: true, agents: 2, sessionsPerAgent: 4, chunksPerAnswer: 8, durationMs: 3_000, partitions: 4, sampleEveryMs: 250 });
    expect(report.errorSamples).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.requests).toBeGreaterThan(8);
    expect(report.memory.gcForced).toBe(true);
    // A leak of even a few KB per request would show in the live heap between the quarters.
    expect(report.memory.heapLastQuarterMb - report.memory.heapSecondQuarterMb).toBeLessThan(16);
  }, 60_000);
});
