// One package's vitest project, as turbo's per-package `test` task: run from the package folder,
// it writes the vitest JSON report to the package's .test-results/, which turbo caches and
// restores, so scripts/test.mjs can total a run served from the cache too.
//
// Usage: node test-package.mjs [--report <file name>] [project...]. The root package runs two such
// tasks (test:repo and test:docs), so each names its own report in the root's .test-results/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const packageDir = process.cwd();
const root = resolve(import.meta.dirname, '..');
const resultsDir = join(packageDir, '.test-results');
const args = process.argv.slice(2);
const reportAt = args.indexOf('--report');
const reportName = reportAt === -1 ? 'vitest.json' : args.splice(reportAt, 2)[1];
if (reportName === undefined || reportName.includes('/')) throw new Error('--report takes a file name');
const jsonFile = join(resultsDir, reportName);
mkdirSync(resultsDir, { recursive: true });
rmSync(jsonFile, { force: true });
// The root package's tasks name their projects; a package's project is its folder name.
const projects = args.length > 0 ? args : [basename(packageDir)];
const run = spawnSync('pnpm', ['exec', 'vitest', 'run', '--passWithNoTests', ...projects.flatMap((p) => ['--project', p])], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, AGDX_TEST_JSON: jsonFile },
});
process.exit(run.status ?? 1);
