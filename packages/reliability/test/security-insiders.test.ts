/**
 * Insiders and forged sources, short run: every verified wait (targeted and untargeted
 * `request()`, A2A blocking and streaming SendMessage and GetTask, MCP tools/call over HTTP)
 * refuses the replies of another enrolled agent, replies signed by one agent that speak as
 * another, unsigned, unknown-key, tampered and replayed replies, and settles on the genuine
 * answer; a verifying agent dead-letters every command whose `source` is not its signer's agent.
 * `scripts/forgery.ts` runs the same scenario for thousands of forgeries.
 */
import { describe, expect, it } from 'vitest';
import { FORGED_COMMANDS, FORGERIES, runForgery, SURFACES } from './support/forgery-scenario.js';

describe('forged and insider replies are refused everywhere', () => {
  it('two rounds per surface: all forgeries refused, all reported, every forged source dead-lettered', async () => {
    const report = await runForgery({ rounds: SURFACES.length * 2, seed: 0x5eed, deadlineMs: 60_000 });
    for (const [surface, figures] of Object.entries(report.surfaces)) {
      expect(figures.failures, surface).toEqual([]);
      expect(figures.rounds, surface).toBe(2);
      expect(figures.refused, surface).toBe(figures.forged);
    }
    const replyRounds = (SURFACES.length - 1) * 2;
    expect(report.forged).toBe(replyRounds * FORGERIES.length + 2 * FORGED_COMMANDS.length);
    expect(report.refused).toBe(report.forged);
    expect(report.deadLetteredSourceMismatch).toBe(2 * FORGED_COMMANDS.length);
    expect(report.reportedSkips).toBe((replyRounds - 2) * FORGERIES.length);
    expect(report.ok).toBe(true);
  });
});
