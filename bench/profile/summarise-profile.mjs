// Summarises V8 .cpuprofile files (several, e.g. tsx's loader thread and the main thread, are
// merged): self time per function (name, file:line), largest first.
//   node bench/profile/summarise-profile.mjs <file.cpuprofile>... (AGDX_PROFILE_TOP=30 rows)
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: summarise-profile.mjs <file.cpuprofile>...');
const top = Number(process.env.AGDX_PROFILE_TOP ?? 30);
const byFunction = new Map();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const id of profile.samples) {
    const f = byId.get(id).callFrame;
    const where = f.url === '' ? '' : `${f.url.replace(/^.*\/(packages|bench|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    const key = `${f.functionName || '(anonymous)'} ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
    total += 1;
  }
}
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`${total} samples`);
for (const [key, count] of rows) console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}`);
