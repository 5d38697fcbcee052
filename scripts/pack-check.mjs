// Quality gate: every package packs, its packed manifest points only at files in the tarball,
// and a consumer outside the workspace can import each public entry and load its types.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'agdx-pack-'));
const consumer = join(work, 'consumer');
const modules = join(consumer, 'node_modules');
mkdirSync(join(modules, '@agdx'), { recursive: true });
const problems = [];
const entries = [];

const packageDirs = readdirSync(join(root, 'packages')).filter((d) => existsSync(join(root, 'packages', d, 'package.json')));
for (const dir of packageDirs) {
  const pkgDir = join(root, 'packages', dir);
  const source = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  if (source.private) continue;
  const out = join(work, 'tarballs', dir);
  mkdirSync(out, { recursive: true });
  execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: pkgDir, stdio: 'pipe' });
  const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'));
  const target = join(modules, '@agdx', dir);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(out, tarball), '-C', target, '--strip-components=1']);
  const packed = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
  if (JSON.stringify(packed).includes('@agdx/source')) problems.push(`${packed.name}: packed manifest still has the @agdx/source condition`);
  if (JSON.stringify(packed.dependencies ?? {}).includes('workspace:')) problems.push(`${packed.name}: packed manifest leaks workspace: ranges`);
  if (!existsSync(join(target, 'README.md'))) problems.push(`${packed.name}: no README.md in the tarball`);
  for (const [subpath, value] of Object.entries(packed.exports ?? {})) {
    if (subpath === './package.json') continue;
    for (const file of Object.values(value)) {
      if (!existsSync(join(target, file))) problems.push(`${packed.name}: export ${subpath} points at missing ${file}`);
    }
    entries.push({ name: packed.name, specifier: subpath === '.' ? packed.name : `${packed.name}/${subpath.slice(2)}` });
  }
  // Third-party dependencies come from the workspace install, as a registry install would provide them.
  for (const dep of Object.keys(packed.dependencies ?? {})) {
    if (dep.startsWith('@agdx/')) continue;
    const link = join(modules, dep);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(pkgDir, 'node_modules', dep)), link, 'dir');
  }
  for (const dep of Object.keys(packed.peerDependencies ?? {})) {
    const link = join(modules, dep);
    const from = [join(pkgDir, 'node_modules', dep), join(root, 'node_modules', dep)].find((p) => existsSync(p));
    if (existsSync(link) || !from) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(from), link, 'dir');
  }
}

// Runtime: each entry imports in plain Node with no source condition.
writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
const runtimeEntries = entries.filter((e) => !e.specifier.endsWith('/testkit'));
const importScript = runtimeEntries.map((e, i) => `import * as m${i} from '${e.specifier}'; if (Object.keys(m${i}).length === 0) throw new Error('${e.specifier} exports nothing');`).join('\n');
writeFileSync(join(consumer, 'imports.mjs'), importScript + '\nconsole.log("ok");\n');
try {
  execFileSync(process.execPath, ['imports.mjs'], { cwd: consumer, stdio: 'pipe' });
} catch (error) {
  problems.push(`runtime import failed: ${error.stderr?.toString() ?? error.message}`);
}

// Types: a strict consumer compiles against the published declarations with skipLibCheck off.
const typesScript = entries.map((e, i) => `import type * as t${i} from '${e.specifier}';\nexport type T${i} = typeof t${i};`).join('\n');
writeFileSync(join(consumer, 'types.ts'), typesScript + '\n');
writeFileSync(
  join(consumer, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2023', 'DOM'], strict: true, noEmit: true, skipLibCheck: false, types: [] },
    files: ['types.ts'],
  }),
);
symlinkSync(join(root, 'node_modules', '@types'), join(modules, '@types'), 'dir');
try {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: consumer, stdio: 'pipe' });
} catch (error) {
  problems.push(`type check of published declarations failed:\n${error.stdout?.toString() ?? ''}${error.stderr?.toString() ?? ''}`);
}

rmSync(work, { recursive: true, force: true });
if (problems.length) {
  console.error(`pack check: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`pack check: ${entries.length} entries in ${packageDirs.length} packages pack, import and type-check`);
