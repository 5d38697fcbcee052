// Profiling driver for the envelope decoder: decodes + validates the benchmark's rings (the same
// varied inputs bench/reference/wire-envelope.bench.ts uses) in a tight loop, so a CPU profile
// shows where decode time goes. Prints the op rate per CPU second (one JSON line).
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile/decode-profile.ts chunk16
//   node scripts/cpuprofile-summary.mjs /tmp/prof/<the main thread's file>.cpuprofile
//
// Without `--conditions=@agdx/source` it imports the built dist (`pnpm run build` first), which is
// what the reference comparison measures. AGDX_WIRE_DIR points it at another build's dist (see
// decode-ab.mjs and decode-ab-same-process.ts); AGDX_PROFILE_OPS sets the op count (default 3,000,000, after 300,000 warm-up ops),
// AGDX_PROFILE_BATCHES how many timed batches they are split into (default 1).
import { pathToFileURL } from 'node:url';
import * as current from '@agdx/wire';
import { envelopeRing, RING_SIZE, SCENARIOS, type Scenario } from '../support/envelope-ring.js';

const scenario = (process.argv[2] ?? 'chunk16') as Scenario;
if (!SCENARIOS.includes(scenario)) throw new Error(`scenario must be one of ${SCENARIOS.join(', ')}`);
const wire = (process.env.AGDX_WIRE_DIR === undefined ? current : await import(pathToFileURL(`${process.env.AGDX_WIRE_DIR}/index.js`).href)) as typeof current;
const ops = Number(process.env.AGDX_PROFILE_OPS ?? 3_000_000);
const encoded = envelopeRing(scenario).map((e) => e.encode().slice());
const mask = RING_SIZE - 1;
let sink = 0;
const decode = (n: number): void => {
  for (let i = 0; i < n; i++) sink ^= wire.AgentEnvelope.decode(encoded[i & mask] as Uint8Array).body.length;
};
decode(300_000);
// Several batches: under load from other processes only the best batch approaches the rate of a
// quiet machine (interference only ever adds time), so it is reported beside the overall rate.
const batches = Math.max(1, Number(process.env.AGDX_PROFILE_BATCHES ?? 1));
const perBatch = Math.ceil(ops / batches);
let cpuMicros = 0;
let best = 0;
for (let b = 0; b < batches; b++) {
  const c0 = process.cpuUsage();
  decode(perBatch);
  const cpu = process.cpuUsage(c0);
  const micros = Math.max(1, cpu.user + cpu.system);
  cpuMicros += micros;
  best = Math.max(best, perBatch / (micros / 1e6));
}
const cpuSeconds = cpuMicros / 1e6;
console.log(JSON.stringify({ scenario, ops: perBatch * batches, cpuSeconds, opsPerCpuSecond: Math.round((perBatch * batches) / cpuSeconds), bestBatchOpsPerCpuSecond: Math.round(best), sink }));
