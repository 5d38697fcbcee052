// The README's test command: quality gates, then every vitest project, then one totals line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const resultsDir = join(root, '.test-results');
mkdirSync(resultsDir, { recursive: true });
const jsonFile = join(resultsDir, 'vitest.json');
rmSync(jsonFile, { force: true });

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
  const run = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  if (run.status === 0) gatePassed += 1;
  else {
    gateFailed += 1;
    console.error(`gate failed: ${name}`);
  }
}

console.log('\n== vitest');
const vitest = spawnSync('pnpm', ['exec', 'vitest', 'run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, AGDX_TEST_JSON: jsonFile },
});
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(jsonFile)) {
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
  skipped = report.numPendingTests + report.numTodoTests;
  // A file that fails to load has no tests but must still count as a failure.
  for (const file of report.testResults ?? []) if (file.status === 'failed' && file.assertionResults.length === 0) failed += 1;
} else failed += 1;
const totalPassed = passed + gatePassed;
const totalFailed = failed + gateFailed + (vitest.status !== 0 && failed === 0 ? 1 : 0);
console.log(`\n${totalPassed} passed, ${totalFailed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(totalFailed === 0 && vitest.status === 0 ? 0 : 1);
