// Quality gate: every published package packs, its packed manifest points only at files in the
// tarball, and it installs ALONE: in an empty folder, with only its declared dependencies (the
// workspace's own packages as their tarballs, the rest from the pnpm store, asking the registry
// only for metadata the store's cache lacks), each
// public entry imports in plain Node, a strict consumer compiles against its types, and every
// bare import in its published files is a declared dependency and every declared dependency is
// imported (or satisfies a peer of one that is).
import { execFile as execFileCallback, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);
const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'agdx-pack-'));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
// Packing and installing are mostly I/O and process start-up, so more than the two cores.
const CONCURRENCY = 4;
const problems = [];
let entryCount = 0;
const timings = [];
const typeFiles = [];
const only = process.env.AGDX_PACK_ONLY?.split(',');

/** Packs every published package; returns name → { dir, tarball, unpacked, manifest } (manifest as packed). */
async function packAll() {
  const dirs = readdirSync(join(root, 'packages')).filter((dir) => {
    const manifest = join(root, 'packages', dir, 'package.json');
    return existsSync(manifest) && !JSON.parse(readFileSync(manifest, 'utf8')).private;
  });
  const packed = await inParallel(dirs, async (dir) => {
    const out = join(work, 'tarballs', dir);
    mkdirSync(out, { recursive: true });
    await execFile('pnpm', ['pack', '--pack-destination', out], { cwd: join(root, 'packages', dir) });
    const tarball = join(out, readdirSync(out).find((f) => f.endsWith('.tgz')));
    const unpacked = join(work, 'unpacked', dir);
    mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
    return [manifest.name, { dir, tarball, unpacked, manifest }];
  });
  return new Map(packed);
}

/** Runs `task` over `items`, {@link CONCURRENCY} at a time, keeping the order of the results. */
async function inParallel(items, task) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await task(items[i]);
    }),
  );
  return results;
}

/** The checks on the tarball itself: clean manifest, README, every export target present. */
function checkTarball({ unpacked, manifest }) {
  const name = manifest.name;
  if (JSON.stringify(manifest).includes('@agdx/source')) problems.push(`${name}: packed manifest still has the @agdx/source condition`);
  for (const field of ['dependencies', 'peerDependencies']) {
    if (JSON.stringify(manifest[field] ?? {}).includes('workspace:')) problems.push(`${name}: packed ${field} leak workspace: ranges`);
  }
  if (!existsSync(join(unpacked, 'README.md'))) problems.push(`${name}: no README.md in the tarball`);
  const entries = [];
  for (const [subpath, value] of Object.entries(manifest.exports ?? {})) {
    if (subpath === './package.json') continue;
    for (const file of typeof value === 'string' ? [value] : Object.values(value)) {
      if (!existsSync(join(unpacked, file))) problems.push(`${name}: export ${subpath} points at missing ${file}`);
    }
    entries.push(subpath === '.' ? name : `${name}/${subpath.slice(2)}`);
  }
  return entries;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a relative or built-in one. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || builtins.has(specifier) || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function* publishedFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') yield* publishedFiles(path);
    else if (/\.(m?js|d\.m?ts)$/.test(entry.name)) yield path;
  }
}

const IMPORT = /(?:^|[\s;{}(])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"]([^'"]+)['"]/g;

/** Compares the bare imports of the published files with the declared dependencies. */
function checkDeclared({ unpacked, manifest }, nodeModules) {
  const used = new Set();
  for (const file of publishedFiles(unpacked)) {
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const pkg = packageOf(match[1] ?? match[2] ?? match[3]);
      if (pkg && pkg !== manifest.name) used.add(pkg);
    }
  }
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  for (const pkg of used) if (!declared.has(pkg)) problems.push(`${manifest.name}: imports ${pkg} but does not declare it`);
  // A dependency nothing imports is still needed when it provides the peer of one that is used.
  const peersOfUsed = new Set();
  for (const pkg of used) {
    const installed = join(nodeModules, pkg, 'package.json');
    if (existsSync(installed)) for (const peer of Object.keys(JSON.parse(readFileSync(installed, 'utf8')).peerDependencies ?? {})) peersOfUsed.add(peer);
  }
  for (const pkg of declared) if (!used.has(pkg) && !peersOfUsed.has(pkg)) problems.push(`${manifest.name}: declares ${pkg} but never imports it`);
}

/** Installs one package alone in an empty folder and checks it from there. */
async function checkAlone(pkg, packed) {
  const { dir, tarball, manifest } = pkg;
  const started = performance.now();
  const lap = (what) => timings.push(`${manifest.name} ${what} ${Math.round(performance.now() - started)} ms`);
  const entries = checkTarball(pkg);
  const consumer = join(work, 'consumers', dir);
  mkdirSync(consumer, { recursive: true });
  // Workspace packages resolve to their own tarballs wherever they appear in the tree; nothing else of ours is there.
  const overrides = Object.fromEntries([...packed.values()].map((p) => [p.manifest.name, `file:${p.tarball}`]));
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: `consumer-of-${dir}`, private: true, type: 'module', dependencies: { [manifest.name]: `file:${tarball}` }, pnpm: { overrides } }),
  );
  writeFileSync(join(consumer, '.npmrc'), 'lockfile=false\nauto-install-peers=true\n');
  try {
    await execFile('pnpm', ['install', '--prefer-offline', '--ignore-workspace', '--reporter=silent'], { cwd: consumer });
  } catch (error) {
    problems.push(`${manifest.name}: does not install alone: ${error.stderr || error.message}`);
    return;
  }
  lap('installed');
  const nodeModules = join(consumer, 'node_modules');
  // pnpm links a package's dependencies beside it: <store>/node_modules/<name> next to <store>/node_modules/<dep>.
  const installed = realpathSync(join(nodeModules, manifest.name));
  checkDeclared({ ...pkg, unpacked: installed }, installed.slice(0, -manifest.name.length - 1));

  // Runtime: each entry imports in plain Node with no source condition. A testkit needs its test runner (an optional peer).
  const runtime = entries.filter((e) => !e.endsWith('/testkit'));
  const importScript = runtime.map((e, i) => `import * as m${i} from '${e}'; if (Object.keys(m${i}).length === 0) throw new Error('${e} exports nothing');`).join('\n');
  writeFileSync(join(consumer, 'imports.mjs'), `${importScript}\n`);
  try {
    await execFile(process.execPath, ['imports.mjs'], { cwd: consumer });
  } catch (error) {
    problems.push(`${manifest.name}: an entry does not import alone: ${error.stderr || error.message}`);
  }

  lap('imported');
  // Types: a strict consumer compiles against the published declarations (one tsc run for all
  // consumers below; each file resolves against its own folder's node_modules).
  const typesScript = entries.map((e, i) => `import type * as t${i} from '${e}';\nexport type T${i} = typeof t${i};`).join('\n');
  writeFileSync(join(consumer, 'types.ts'), `${typesScript}\n`);
  // The Node-only packages' declarations name Node's types, which a Node user has installed.
  symlinkSync(join(root, 'node_modules', '@types'), join(nodeModules, '@types'), 'dir');
  typeFiles.push({ name: manifest.name, file: join(consumer, 'types.ts'), dir: consumer });
  entryCount += entries.length;
}

/** One strict tsc run over every consumer's types.ts, skipLibCheck off; errors are reported per package. */
function typeCheck() {
  if (typeFiles.length === 0) return;
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2023', 'DOM'], strict: true, noEmit: true, skipLibCheck: false, types: [] },
      files: typeFiles.map((t) => t.file),
    }),
  );
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: work, stdio: 'pipe' });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    const lines = output.split('\n').filter((line) => line.trim());
    for (const { name, dir } of typeFiles) {
      const relativeDir = dir.slice(work.length + 1);
      const own = lines.filter((line) => line.startsWith(relativeDir));
      if (own.length) problems.push(`${name}: type check of the published declarations failed:\n    ${own.join('\n    ')}`);
    }
    if (!typeFiles.some(({ dir }) => output.includes(dir.slice(work.length + 1)))) problems.push(`type check failed:\n${output}`);
  }
  timings.push(`type check of ${typeFiles.length} consumers done`);
}

try {
  const packed = await packAll();
  await inParallel([...packed.values()].filter((p) => !only || only.includes(p.dir)), (pkg) => checkAlone(pkg, packed));
  typeCheck();
  if (process.env.AGDX_PACK_TIMINGS) console.log(timings.join('\n'));
  if (problems.length) {
    console.error(`pack check: ${problems.length} problem(s)`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  } else console.log(`pack check: ${packed.size} packages each install alone; ${entryCount} entries import and type-check`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
