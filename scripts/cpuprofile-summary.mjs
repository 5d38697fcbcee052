// Summarises a V8 .cpuprofile (from `node --cpu-prof`, or AGDX_SERVER_PROF=<dir> on the benchmarks
// that spawn a dev server): total sampled time, then the functions with the most self time and the
// most inclusive time (a function counted once per sample however deep it recurses).
// Usage: node scripts/cpuprofile-summary.mjs <file.cpuprofile> [top=30]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: node scripts/cpuprofile-summary.mjs <file.cpuprofile> [top=30]\n');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);

// Sampled µs per node: each sample's time delta belongs to the node it landed in.
const sampled = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  sampled.set(id, (sampled.get(id) ?? 0) + delta);
  total += delta;
});

const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const self = new Map();
const inclusive = new Map();
for (const [id, micros] of sampled) {
  const own = label(nodes.get(id));
  self.set(own, (self.get(own) ?? 0) + micros);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const name = label(nodes.get(at));
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
  }
}

const table = (m) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => `${(micros / 1000).toFixed(1).padStart(9)} ms ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
console.log('--- self');
console.log(table(self));
console.log('--- inclusive');
console.log(table(inclusive));
