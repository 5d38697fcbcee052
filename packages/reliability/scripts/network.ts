/**
 * Long run of network faults: --calls calls per protocol through the fault proxy. Writes
 * results/network.json; exits 1 on a hang, an untyped error or a lost acknowledged append.
 */
import { runNetworkFaults } from '../test/support/network-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const calls = numberArg('calls', 3_000);
const runs = [];
for (const [i, protocol] of (['vsr', 'classic'] as const).entries()) {
  const report = await runNetworkFaults({ seed: numberArg('seed', 0xfa17) + i, protocol, calls, maxMs: 10 * 60_000, clients: numberArg('clients', 4), requestTimeoutMs: 300, callsPerPhase: 40 });
  process.stdout.write(`${protocol}: ${report.calls} calls, ${report.acknowledged} acknowledged, missing ${report.acknowledgedMissing}, over bound ${report.overBound}\n`);
  runs.push(report);
}
writeResult('network', runs);
process.exit(runs.every((r) => r.acknowledgedMissing === 0 && r.overBound === 0 && r.untypedErrors.length === 0 && r.recovered) ? 0 : 1);
