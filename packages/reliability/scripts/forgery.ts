/**
 * Long run of forged and insider replies: --rounds (default 700) rounds rotating over every
 * verified wait (targeted and untargeted request, A2A blocking, streaming and GetTask, MCP
 * tools/call) and the verifying runtime; six forged replies (or three forged-source commands)
 * per round. Writes results/forgery.json; exits 1 unless every forgery was refused.
 */
import { runForgery } from '../test/support/forgery-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const rounds = numberArg('rounds', 700);
const seed = numberArg('seed', 0xf0a9);
const started = performance.now();
const report = await runForgery({ rounds, seed, deadlineMs: 30 * 60_000 });
const seconds = Math.round((performance.now() - started) / 100) / 10;
for (const [surface, figures] of Object.entries(report.surfaces)) {
  process.stdout.write(`${surface}: ${figures.rounds} rounds, ${figures.refused}/${figures.forged} refused, ${figures.failures.length} failures\n`);
}
process.stdout.write(`forged ${report.forged}, refused ${report.refused}, reported ${report.reportedSkips}, dead-lettered ${report.deadLetteredSourceMismatch}, ${seconds} s\n`);
writeResult('forgery', { ...report, seconds });
process.exit(report.ok ? 0 : 1);
