/**
 * Long run of crash and replay: --agents agent processes, --commands commands, --kills SIGKILLs
 * of agents and the dev server (on disk, fsync always). Writes results/crash.json; exits 1 when
 * an acknowledged command is missing or a command has no reply.
 */
import { runCrashAndReplay } from '../test/support/crash-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const report = await runCrashAndReplay({
  seed: numberArg('seed', 0xc4a5),
  agents: numberArg('agents', 4),
  commands: numberArg('commands', 1_000),
  kills: numberArg('kills', 12),
  partitions: numberArg('partitions', 4),
  sendEveryMs: numberArg('send-every-ms', 10),
  killEveryMs: numberArg('kill-every-ms', 500),
  serverKillShare: 0.3,
  settleMs: numberArg('settle-ms', 120_000),
  handlerDelayMs: numberArg('handler-delay-ms', 5),
});
writeResult('crash', report);
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(report.acknowledgedMissing === 0 && report.repliesMissing === 0 ? 0 : 1);
