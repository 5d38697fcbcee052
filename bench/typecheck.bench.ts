// What the repository typecheck costs since it enforces the build's `isolatedDeclarations` rule on
// packages' `src` (scripts/typecheck.mjs), against the plain `tsc -p tsconfig.json --noEmit` it
// replaced, in alternating rounds (baseline, ours, baseline, ours, ...):
//   ours     = `node scripts/typecheck.mjs` (one program, declaration diagnostics of `src`);
//   baseline = `tsc -p tsconfig.json --noEmit` (the previous `typecheck:repo`).
// Each figure is the CPU seconds (user + system) of the child process, read from this process's
// reaped-children counters in /proc/self/stat (Linux); `cpuRatio` = ours / baseline in the same
// round. Wall seconds are reported too, but on a shared machine only the CPU figures compare.
// Run: pnpm bench typecheck → one JSON object on stdout. AGDX_BENCH_RUNS (default 3) sets the rounds.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { machine } from './support/machine.js';
import { spread } from './support/stats.js';

const ROUNDS = Math.max(1, Number(process.env.AGDX_BENCH_RUNS ?? 3));
const root = resolve(import.meta.dirname, '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK); /proc reports children's CPU in ticks.
const TICKS_PER_SECOND = 100;

/** CPU seconds of this process's reaped children (utime + stime of every waited-for child). */
function childrenCpuSeconds(): number {
  // fields after the parenthesised command name: cutime and cstime are the 14th and 15th
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

interface Sample {
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
}

function run(args: readonly string[]): Sample {
  const cpu = childrenCpuSeconds();
  const started = performance.now();
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallSeconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${String(child.status)}:\n${child.stdout}${child.stderr}`);
  return { cpuSeconds: childrenCpuSeconds() - cpu, wallSeconds };
}

function main(): void {
  const before = machine();
  const ours: Sample[] = [];
  const baseline: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(run([tsc, '-p', 'tsconfig.json', '--noEmit']));
    ours.push(run(['scripts/typecheck.mjs']));
  }
  const after = machine();
  const ratios = ours.map((o, i) => o.cpuSeconds / (baseline[i] as Sample).cpuSeconds);
  console.log(
    JSON.stringify(
      {
        benchmark: 'typecheck',
        unit: 'CPU seconds of one typecheck child process (user + system)',
        rounds: ROUNDS,
        ours: { cpuSeconds: spread(ours.map((s) => s.cpuSeconds)), wallSeconds: spread(ours.map((s) => s.wallSeconds)) },
        baseline: { cpuSeconds: spread(baseline.map((s) => s.cpuSeconds)), wallSeconds: spread(baseline.map((s) => s.wallSeconds)) },
        cpuRatio: spread(ratios, 3),
        machineBefore: before,
        machineAfter: after,
      },
      null,
      2,
    ),
  );
}

main();
