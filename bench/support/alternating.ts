// Ours against a baseline in the same process, in alternating rounds, as rates per CPU second.
// CPU time (process.cpuUsage: user + system of every thread, so GC helper threads count) barely
// moves when other processes load a shared machine, where wall-clock rates mostly measure them.
// Each round runs both sides once, swapping who goes first every round, with a forced minor GC
// (a scavenge of the young generation) before every timed batch so each side pays for its own
// short-lived garbage. Not a full GC: its background sweeping runs on into the next batch and was
// measured to cost that batch up to half its rate. The per-round ratio ours / baseline is
// the headline; its median over the rounds is what the docs quote.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { median } from './stats.js';

setFlagsFromString('--expose-gc');
type Gc = (options?: { type: 'minor' | 'major' }) => void;
const gc = (globalThis as { gc?: Gc }).gc ?? (runInNewContext('gc') as Gc);

/** One side of a comparison: `run(i)` does one operation on input `i` (callers index a ring). */
export interface Contender {
  readonly run: (i: number) => unknown;
  /** true when `run` returns a promise that must settle before the next call (one at a time). */
  readonly async?: boolean;
}

/** min / median / max of a list of rates, rounded. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** What {@link compareAlternating} reports. */
export interface Comparison {
  readonly opsPerBatch: { readonly ours: number; readonly baseline: number };
  /** Ops per CPU second of this process, over the rounds. */
  readonly oursPerCpuSecond: Spread;
  readonly baselinePerCpuSecond: Spread;
  /** Ops per wall-clock second, over the rounds (noisy on a shared machine; for reference only). */
  readonly oursPerWallSecond: Spread;
  readonly baselinePerWallSecond: Spread;
  /** ours / baseline of the CPU-second rates of each round, and their spread. */
  readonly ratioPerRound: readonly number[];
  readonly ratio: Spread;
}

/** How long one timed batch should take, and how many rounds. */
export interface CompareOptions {
  readonly rounds?: number;
  readonly batchCpuMs?: number;
}

let sink = 0;

async function batch(c: Contender, n: number, start: number): Promise<{ cpuMicros: number; wallMs: number }> {
  gc({ type: 'minor' });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (c.async === true) {
    for (let i = 0; i < n; i++) await c.run(start + i);
  } else {
    for (let i = 0; i < n; i++) sink ^= c.run(start + i) === undefined ? 0 : 1;
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return { cpuMicros: Math.max(1, cpu.user + cpu.system), wallMs };
}

// Doubles the batch until it costs 20 ms of CPU, then scales it to the target; bounded at 2^24 ops.
async function calibrate(c: Contender, targetCpuMs: number): Promise<number> {
  for (let n = 16; n < 1 << 24; n *= 2) {
    const { cpuMicros } = await batch(c, n, 0);
    if (cpuMicros >= 20_000) return Math.max(1, Math.round((n * targetCpuMs * 1000) / cpuMicros));
  }
  return 1 << 24;
}

function spread(values: readonly number[], digits = 0): Spread {
  const f = (v: number): number => Number(v.toFixed(digits));
  return { min: f(Math.min(...values)), median: f(median(values)), max: f(Math.max(...values)) };
}

/** Measures `ours` and `baseline` in alternating rounds (default 7 rounds of ~100 ms CPU each). */
export async function compareAlternating(ours: Contender, baseline: Contender, options: CompareOptions = {}): Promise<Comparison> {
  const rounds = options.rounds ?? 7;
  const target = options.batchCpuMs ?? 100;
  const n = { ours: await calibrate(ours, target), baseline: await calibrate(baseline, target) };
  const cpu = { ours: [] as number[], baseline: [] as number[] };
  const wall = { ours: [] as number[], baseline: [] as number[] };
  const ratios: number[] = [];
  let offset = 0;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
    const rate: Record<'ours' | 'baseline', number> = { ours: 0, baseline: 0 };
    for (const side of order) {
      const count = n[side];
      // Both sides walk the same inputs in the same order; the offset moves every round.
      const { cpuMicros, wallMs } = await batch(side === 'ours' ? ours : baseline, count, offset);
      rate[side] = count / (cpuMicros / 1e6);
      cpu[side].push(rate[side]);
      wall[side].push(count / (wallMs / 1000));
    }
    offset += 7;
    ratios.push(rate.ours / rate.baseline);
  }
  return {
    opsPerBatch: n,
    oursPerCpuSecond: spread(cpu.ours),
    baselinePerCpuSecond: spread(cpu.baseline),
    oursPerWallSecond: spread(wall.ours),
    baselinePerWallSecond: spread(wall.baseline),
    ratioPerRound: ratios.map((r) => Number(r.toFixed(2))),
    ratio: spread(ratios, 2),
  };
}

/** Keeps the optimiser from discarding results; print it once. */
export function sinkBit(): number {
  return sink & 1;
}
