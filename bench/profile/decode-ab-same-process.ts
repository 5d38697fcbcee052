// Decoder A/B in one process: the current build of @agdx/wire against another build's dist
// (AGDX_BASE_WIRE, for example a worktree of main), decode + validate of the reference benchmark's
// varied rings, in alternating rounds of short CPU-time batches (bench/support/alternating.ts), so
// both sides see nearly the same machine load. The per-round ratio current / base is the figure;
// a whole-process A/B (decode-ab.mjs) cannot pair its rounds this closely on a loaded machine.
//
//   pnpm --filter @agdx/wire build
//   AGDX_BASE_WIRE=/work/other/packages/wire/dist node --import tsx bench/profile/decode-ab-same-process.ts
//
// Argument: a comma list of scenarios (default all); AGDX_BENCH_RUNS sets the rounds (default 21).
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import * as current from '@agdx/wire';
import { compareAlternating, sinkBit } from '../support/alternating.js';
import { envelopeRing, RING_SIZE, SCENARIOS, type Scenario } from '../support/envelope-ring.js';

const baseDir = process.env.AGDX_BASE_WIRE;
if (baseDir === undefined) throw new Error('set AGDX_BASE_WIRE to the dist directory of the build to compare with');
const base = (await import(pathToFileURL(`${baseDir}/index.js`).href)) as typeof current;
// AGDX_CURRENT_WIRE replaces this checkout's build (for a control run: two copies of one build).
const ours = process.env.AGDX_CURRENT_WIRE === undefined ? current : ((await import(pathToFileURL(`${process.env.AGDX_CURRENT_WIRE}/index.js`).href)) as typeof current);
const scenarios = (process.argv[2]?.split(',') ?? SCENARIOS) as Scenario[];
for (const s of scenarios) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
const rounds = Number(process.env.AGDX_BENCH_RUNS ?? 21);
const mask = RING_SIZE - 1;
const loadBefore = loadavg();
const results: Record<string, unknown> = {};
for (const scenario of scenarios) {
  const encoded = envelopeRing(scenario).map((e) => e.encode().slice());
  // Both builds must read every input back to the same bytes before anything is timed.
  const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, j) => x === b[j]);
  for (const bytes of encoded) {
    if (!same(ours.AgentEnvelope.decode(bytes).encode(), bytes) || !same(base.AgentEnvelope.decode(bytes).encode(), bytes)) {
      throw new Error(`${scenario}: a build does not decode an input back to its bytes`);
    }
  }
  const c = await compareAlternating(
    { run: (i) => ours.AgentEnvelope.decode(encoded[i & mask] as Uint8Array) },
    { run: (i) => base.AgentEnvelope.decode(encoded[i & mask] as Uint8Array) },
    { rounds, batchCpuMs: 40 },
  );
  results[scenario] = { ratio: c.ratio, currentPerCpuSecond: c.oursPerCpuSecond.median, basePerCpuSecond: c.baselinePerCpuSecond.median };
}
const fmt = (l: number[]): string[] => l.map((x) => x.toFixed(2));
console.log(JSON.stringify({ name: 'decode-ab-same-process', load: [fmt(loadBefore), fmt(loadavg())], results, sink: sinkBit() }));
