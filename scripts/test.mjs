// The README's test command: quality gates, then every vitest project, then one totals line.
// Everything goes through turbo, so a second run with no change is served from its cache; the
// per-package vitest JSON reports are task outputs, restored on a cache hit, and totalled here.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1' };

const gates = [
  ['import rules', ['pnpm', 'run', 'lint']],
  ['typecheck', ['pnpm', 'run', 'typecheck']],
  ['build', ['pnpm', 'run', 'build']],
  ['pack check', ['pnpm', 'run', 'pack:check']],
];
let gatePassed = 0;
let gateFailed = 0;
for (const [name, [cmd, ...args]] of gates) {
  console.log(`\n== ${name}`);
  const run = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (run.status === 0) gatePassed += 1;
  else {
    gateFailed += 1;
    console.error(`gate failed: ${name}`);
  }
}

// Where each vitest run writes its JSON report: one per package, and the root's two (runtimes and
// size of the built packages; docs, the documentation's examples against the sources).
const packageDirs = readdirSync(join(root, 'packages')).filter((d) => existsSync(join(root, 'packages', d, 'package.json')));
const reports = [
  ...packageDirs.map((d) => ({ name: d, file: join(root, 'packages', d, '.test-results', 'vitest.json') })),
  { name: 'runtimes, size', file: join(root, '.test-results', 'vitest.json') },
  { name: 'docs', file: join(root, '.test-results', 'docs.json') },
];

console.log('\n== vitest');
let vitest;
if (process.argv.length > 2) {
  // Arguments (a file, a --project) are vitest's: one direct run, no cache, one report.
  const jsonFile = join(root, '.test-results', 'vitest.json');
  mkdirSync(join(root, '.test-results'), { recursive: true });
  for (const { file } of reports) rmSync(file, { force: true });
  vitest = spawnSync('pnpm', ['exec', 'vitest', 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...env, AGDX_TEST_JSON: jsonFile } });
  reports.splice(0, reports.length, { name: 'vitest', file: jsonFile });
} else {
  // A report left from an earlier run must not count: turbo writes or restores each one afresh.
  for (const { file } of reports) rmSync(file, { force: true });
  // Two at a time: each vitest has its own worker pool and the machine has two cores.
  vitest = spawnSync('pnpm', ['exec', 'turbo', 'run', 'test', 'test:repo', 'test:docs', '--concurrency=2', '--continue'], { cwd: root, stdio: 'inherit', env });
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const { name, file } of reports) {
  if (!existsSync(file)) {
    console.error(`no vitest report from ${name}`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
  skipped += report.numPendingTests + report.numTodoTests;
  // A file that fails to load has no tests but must still count as a failure.
  for (const result of report.testResults ?? []) if (result.status === 'failed' && result.assertionResults.length === 0) failed += 1;
}
const totalPassed = passed + gatePassed;
const totalFailed = failed + gateFailed + (vitest.status !== 0 && failed === 0 ? 1 : 0);
console.log(`\n${totalPassed} passed, ${totalFailed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(totalFailed === 0 && vitest.status === 0 ? 0 : 1);
