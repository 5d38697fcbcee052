/**
 * Long run of network faults: --calls transport calls per protocol through the fault proxy, then
 * --requests correlated agent requests (AgdxClient.request) through it. Writes
 * results/network.json; exits 1 on a hang, an untyped error, a wrong answer or a lost
 * acknowledged append.
 */
import { runNetworkFaults } from '../test/support/network-scenario.js';
import { runRequestFaults } from '../test/support/request-faults.js';
import { numberArg, writeResult } from '../test/support/results.js';

const calls = numberArg('calls', 3_000);
const runs = [];
for (const [i, protocol] of (['vsr', 'classic'] as const).entries()) {
  const report = await runNetworkFaults({ seed: numberArg('seed', 0xfa17) + i, protocol, calls, maxMs: 10 * 60_000, clients: numberArg('clients', 4), requestTimeoutMs: 300, callsPerPhase: 40 });
  process.stdout.write(`${protocol}: ${report.calls} calls, ${report.acknowledged} acknowledged, missing ${report.acknowledgedMissing}, over bound ${report.overBound}\n`);
  runs.push(report);
}
const requests = await runRequestFaults(numberArg('seed', 0xfa17) + 7, numberArg('requests', 120), 6, 800, 600);
process.stdout.write(`requests: ${requests.requests}, answered ${requests.answered}, over bound ${requests.overBound}, recovered ${requests.recovered}\n`);
writeResult('network', { transport: runs, requests });
const transportOk = runs.every((r) => r.acknowledgedMissing === 0 && r.overBound === 0 && r.untypedErrors.length === 0 && r.recovered);
const requestsOk = requests.overBound === 0 && requests.untypedErrors.length === 0 && requests.wrongAnswers === 0 && requests.recovered;
process.exit(transportOk && requestsOk ? 0 : 1);
