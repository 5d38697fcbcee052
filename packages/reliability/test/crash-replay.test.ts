/**
 * Crash and replay, short run: two agent processes and the dev server (on disk, fsync always)
 * are SIGKILLed and restarted while commands stream in; every acknowledged command stays in the
 * log, every command gets a reply, duplicates are counted (and may be non-zero: at least once).
 */
import { describe, expect, it } from 'vitest';
import { runCrashAndReplay } from './support/crash-scenario.js';

describe('crash and replay on the dev server', () => {
  it('loses no acknowledged command and leaves no command unanswered across SIGKILLs of agents and server', async () => {
    const report = await runCrashAndReplay({
      seed: 0xc4a5,
      agents: 2,
      commands: 60,
      kills: 3,
      partitions: 3,
      sendEveryMs: 40,
      killEveryMs: 300,
      serverKillShare: 0.34,
      settleMs: 25_000,
      handlerDelayMs: 5,
    });
    expect(report.acknowledgedMissing).toBe(0);
    expect(report.repliesMissing).toBe(0);
    expect(report.agentKills).toBeGreaterThan(0);
    expect(report.serverKills).toBeGreaterThan(0);
    expect(report.repliesTotal).toBe(60 + report.duplicateReplies);
  }, 90_000);
});
