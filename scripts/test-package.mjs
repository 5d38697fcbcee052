// One package's vitest project, as turbo's per-package `test` task: run from the package folder,
// it writes the vitest JSON report to the package's .test-results/, which turbo caches and
// restores, so scripts/test.mjs can total a run served from the cache too.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const packageDir = process.cwd();
const root = resolve(import.meta.dirname, '..');
const resultsDir = join(packageDir, '.test-results');
const jsonFile = join(resultsDir, 'vitest.json');
mkdirSync(resultsDir, { recursive: true });
rmSync(jsonFile, { force: true });
// The root package's tasks name their projects; a package's project is its folder name.
const projects = process.argv.length > 2 ? process.argv.slice(2) : [basename(packageDir)];
const run = spawnSync('pnpm', ['exec', 'vitest', 'run', '--passWithNoTests', ...projects.flatMap((p) => ['--project', p])], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, AGDX_TEST_JSON: jsonFile },
});
process.exit(run.status ?? 1);
