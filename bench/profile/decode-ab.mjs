// A/B for decoder work: the current build of @agdx/wire against a saved copy of an earlier build,
// each in its own process (two copies of one module in a process disturb each other's JIT state),
// alternating A and B, decode + validate rates per CPU second (each process's best of 20 batches:
// load from other processes only ever slows a batch down), with ratio min/median/max.
//   cp -r packages/wire/dist packages/wire/.dist-base     # before changing anything
//   pnpm --filter @agdx/wire build && node bench/profile/decode-ab.mjs chunk16,command100
// AGDX_BASE_WIRE names another copy; AGDX_BENCH_RUNS sets the rounds (default 7).
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const baseDir = process.env.AGDX_BASE_WIRE ?? join(root, 'packages/wire/.dist-base');
const rounds = Number(process.env.AGDX_BENCH_RUNS ?? 7);
const scenarios = (process.argv[2] ?? 'command100,chunk16,response8k').split(',');
const rate = (scenario, wireDir) => {
  const env = { ...process.env, AGDX_PROFILE_OPS: process.env.AGDX_PROFILE_OPS ?? '1000000', AGDX_PROFILE_BATCHES: process.env.AGDX_PROFILE_BATCHES ?? '20' };
  if (wireDir === undefined) delete env.AGDX_WIRE_DIR;
  else env.AGDX_WIRE_DIR = wireDir;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/profile/decode-profile.ts'), scenario], { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout).bestBatchOpsPerCpuSecond;
};
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadBefore = loadavg();
const results = {};
for (const scenario of scenarios) {
  const ratios = [];
  const ours = [];
  const base = [];
  for (let i = 0; i < rounds; i++) {
    const [a, b] = i % 2 === 0 ? [rate(scenario), rate(scenario, baseDir)] : [rate(scenario, baseDir), rate(scenario)].reverse();
    ours.push(a);
    base.push(b);
    ratios.push(Number((a / b).toFixed(3)));
  }
  results[scenario] = { ratio: { min: Math.min(...ratios), median: med(ratios), max: Math.max(...ratios) }, ours: med(ours), base: med(base) };
}
console.log(JSON.stringify({ name: 'decode-ab', load: [loadBefore.map((l) => l.toFixed(2)), loadavg().map((l) => l.toFixed(2))], results }));
