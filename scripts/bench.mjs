// Runs every bench/*.bench.ts (or those named on the command line), each in its own process,
// and writes one JSON file per benchmark plus a summary under bench/results/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const benchDir = join(root, 'bench');
const outDir = join(benchDir, 'results');
mkdirSync(outDir, { recursive: true });
const wanted = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
const summary = { node: process.version, startedAt: new Date().toISOString(), results: {} };
let failures = 0;
for (const file of files) {
  const name = basename(file, '.bench.ts');
  process.stderr.write(`bench ${name} ...\n`);
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--conditions=@agdx/source', join(benchDir, file)],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) {
    failures += 1;
    process.stderr.write(run.stderr);
    summary.results[name] = { error: `exit ${run.status}` };
    continue;
  }
  try {
    const result = JSON.parse(run.stdout);
    summary.results[name] = result;
    writeFileSync(join(outDir, `${name}.json`), JSON.stringify(result, null, 2) + '\n');
  } catch {
    failures += 1;
    summary.results[name] = { error: 'output was not one JSON object', output: run.stdout.slice(0, 2000) };
  }
}
writeFileSync(join(outDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
console.log(JSON.stringify(summary, null, 2));
process.exit(failures === 0 ? 0 : 1);
