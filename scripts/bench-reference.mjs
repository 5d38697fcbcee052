// Opt-in: fetches the published reference (@laserdata/laser-sdk 0.1.1) the way any registry package
// is fetched, checks it against the pinned integrity, and runs the benchmarks that compare against
// it in the same process run (bench/reference/*.bench.ts). Nothing else in the repository needs it:
// `pnpm test`, `pnpm demo` and `pnpm bench` never touch bench/.reference/.
//
//   pnpm bench:reference              fetch if needed, then run every reference benchmark
//   pnpm bench:reference wire         only the benchmarks whose file name contains "wire"
//   pnpm bench:reference --fetch-only fetch, verify and install, run nothing
//   pnpm bench:reference --source     run our packages from their TypeScript sources (through tsx)
//
// By default our side runs the built `dist/` JavaScript, as the reference runs its published
// dist: the packages are built first (turbo, cached). Through tsx our code carries its transform's
// helpers (`__name` wrappers around named functions), which the published output does not, so a
// source run understates our side.
//
// The reference declares `apache-iggy` 0.9.0-edge.1, which is not installable, so the package is
// not `npm install`ed: its tarball is unpacked and the benchmarks import the dist modules that hold
// the envelope codec and the signer. Those modules need only cborg and @noble/*, installed here at
// versions the reference's own manifest accepts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const PACKAGE = '@laserdata/laser-sdk@0.1.1';
const INTEGRITY = 'sha512-YATHcL2yWGmqXqfgQCNCDlh+vO0uaLubeiq7pvlCbjwMLSnz+P8mjkBUH7YQwbcrVd7GqMKGJgZS+zZvkskecw==';
// Exact versions inside the reference manifest's ranges (cborg ^6.1.1; the @noble ones are pinned
// there), so a rerun next month measures the same code.
const RUNTIME_DEPENDENCIES = { cborg: '6.1.5', '@noble/ed25519': '3.1.0', '@noble/hashes': '2.3.0' };

const root = resolve(import.meta.dirname, '..');
const cacheDir = join(root, 'bench', '.reference');
const unpacked = join(cacheDir, 'package');
const marker = join(cacheDir, 'verified.json');
const benchDir = join(root, 'bench', 'reference');
const outDir = join(root, 'bench', 'results');

function fail(message) {
  process.stderr.write(`\nbench:reference: ${message}\n\n`);
  process.exit(1);
}

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) fail(`\`${command} ${args.join(' ')}\` failed (exit ${String(r.status)}):\n${r.stderr ?? ''}${r.error ? String(r.error) : ''}`);
  return r.stdout;
}

function alreadyVerified() {
  if (!existsSync(marker) || !existsSync(join(unpacked, 'dist', 'wire', 'agent.js'))) return false;
  try {
    const seen = JSON.parse(readFileSync(marker, 'utf8'));
    return seen.integrity === INTEGRITY && JSON.stringify(seen.dependencies) === JSON.stringify(RUNTIME_DEPENDENCIES);
  } catch {
    return false;
  }
}

function fetchReference() {
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  process.stderr.write(`fetching ${PACKAGE} with npm pack ...\n`);
  const packed = JSON.parse(run('npm', ['pack', PACKAGE, '--json', '--pack-destination', cacheDir], cacheDir));
  const tarball = join(cacheDir, packed[0].filename);
  // Our own digest of the bytes on disk, not only what npm reports: the pin is the point.
  const actual = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (actual !== INTEGRITY) {
    rmSync(cacheDir, { recursive: true, force: true });
    fail(`INTEGRITY MISMATCH for ${PACKAGE}\n  expected ${INTEGRITY}\n  got      ${actual}\nThe download was deleted; nothing was run.`);
  }
  run('tar', ['-xzf', tarball, '-C', cacheDir], cacheDir);
  writeFileSync(
    join(cacheDir, 'package.json'),
    `${JSON.stringify({ name: 'agdx-bench-reference', private: true, description: `runtime dependencies of ${PACKAGE}'s codec and signer modules`, dependencies: RUNTIME_DEPENDENCIES }, null, 2)}\n`,
  );
  process.stderr.write(`installing ${Object.entries(RUNTIME_DEPENDENCIES).map(([n, v]) => `${n}@${v}`).join(', ')} into bench/.reference ...\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--prefix', cacheDir], cacheDir);
  writeFileSync(marker, `${JSON.stringify({ package: PACKAGE, integrity: INTEGRITY, dependencies: RUNTIME_DEPENDENCIES, fetchedAt: new Date().toISOString() }, null, 2)}\n`);
}

if (alreadyVerified()) process.stderr.write(`${PACKAGE} already fetched and verified in bench/.reference\n`);
else fetchReference();

const args = process.argv.slice(2);
if (args.includes('--fetch-only')) process.exit(0);
const wanted = args.filter((a) => !a.startsWith('--'));
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
if (files.length === 0) fail(`no bench/reference/*.bench.ts matches ${wanted.join(', ')}`);
mkdirSync(outDir, { recursive: true });
const fromSource = args.includes('--source');
if (!fromSource) {
  process.stderr.write('building our packages (turbo, cached) so the benchmarks import their dist ...\n');
  run('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@agdx/wire', '--filter=@agdx/sign', '--output-logs=errors-only'], root);
}
const nodeArgs = fromSource ? ['--expose-gc', '--import', 'tsx', '--conditions=@agdx/source'] : ['--expose-gc', '--import', 'tsx'];
let failures = 0;
for (const file of files) {
  const name = `reference-${basename(file, '.bench.ts')}`;
  process.stderr.write(`bench ${name} ...\n`);
  const r = spawnSync(process.execPath, [...nodeArgs, join(benchDir, file)], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, AGDX_REFERENCE_DIR: unpacked },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) {
    failures += 1;
    process.stderr.write(`${name}: exit ${String(r.status)}\n`);
    continue;
  }
  try {
    const result = { ...JSON.parse(r.stdout), ours: fromSource ? 'TypeScript sources through tsx' : 'built dist JavaScript' };
    writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch {
    failures += 1;
    process.stderr.write(`${name}: output was not one JSON object:\n${r.stdout.slice(0, 2000)}\n`);
  }
}
process.exit(failures === 0 ? 0 : 1);
