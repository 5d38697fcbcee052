// Quality gate: fails on imports that break the layering rules of DESIGN.md section 3.
//  - runtime-neutral packages must not import node:* (or bare Node built-ins) nor use Buffer,
//    nor reach a built-in through `process.getBuiltinModule`, except where BUILTIN_LOOKUPS allows it;
//  - a package imports another only through that package's declared public entries;
//  - a package never reaches into another package's folder with a relative path;
//  - every @agdx/* import is declared in the importing package's dependencies.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';

const NODE_ALLOWED = new Set(['transport-iggy', 'iggy-dev-server', 'cli', 'bridge-testing']);
// Runtime-neutral files allowed to look a Node built-in up at run time by feature detection
// (never an import, so browsers and edge runtimes load them unchanged), and the only modules each
// may name. @agdx/sign: the synchronous node:crypto Ed25519 back end, which falls back to
// WebCrypto and noble where the lookup is missing (packages/sign/README.md, "Back ends").
const BUILTIN_LOOKUPS = new Map([['packages/sign/src/ed25519/node-crypto-module.ts', new Set(['node:crypto'])]]);
const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

const packages = new Map();
for (const dir of readdirSync(packagesDir)) {
  const manifestPath = join(packagesDir, dir, 'package.json');
  try {
    statSync(manifestPath);
  } catch {
    continue;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  packages.set(manifest.name, { dir, manifest });
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const importPattern = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
const problems = [];
let checked = 0;

for (const [name, { dir, manifest }] of packages) {
  const neutral = !NODE_ALLOWED.has(dir);
  const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }));
  const pkgRoot = join(packagesDir, dir);
  for (const folder of ['src']) {
    let files;
    try {
      files = [...sourceFiles(join(pkgRoot, folder))];
    } catch {
      continue;
    }
    for (const file of files) {
      checked += 1;
      const text = readFileSync(file, 'utf8');
      const where = relative(root, file);
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
      if (neutral && /\bBuffer\b/.test(code)) problems.push(`${where}: uses Buffer in runtime-neutral package ${name}`);
      if (neutral && /\bgetBuiltinModule\b/.test(code)) {
        const allowed = BUILTIN_LOOKUPS.get(where.split(sep).join('/'));
        if (allowed === undefined) problems.push(`${where}: looks up a Node built-in (getBuiltinModule) in runtime-neutral package ${name}`);
        else {
          for (const [, id] of code.matchAll(/['"`](node:[^'"`]*)['"`]/g)) {
            if (!allowed.has(id)) problems.push(`${where}: names ${id}, which its getBuiltinModule allowance does not cover`);
          }
        }
      }
      for (const match of code.matchAll(importPattern)) {
        const spec = match[1] ?? match[2] ?? match[3];
        if (neutral && builtins.has(spec)) problems.push(`${where}: imports ${spec} in runtime-neutral package ${name}`);
        if (spec.startsWith('.')) {
          const target = resolve(join(file, '..'), spec);
          if (!target.startsWith(pkgRoot + sep)) problems.push(`${where}: relative import ${spec} leaves the package`);
          continue;
        }
        if (!spec.startsWith('@agdx/')) continue;
        const [scope, base, ...rest] = spec.split('/');
        const target = `${scope}/${base}`;
        const other = packages.get(target);
        if (!other) {
          problems.push(`${where}: imports unknown package ${target}`);
          continue;
        }
        if (target === name) problems.push(`${where}: imports its own package by name`);
        if (!declared.has(target)) problems.push(`${where}: imports ${target} without declaring it`);
        const subpath = rest.length ? `./${rest.join('/')}` : '.';
        if (!(subpath in (other.manifest.exports ?? {}))) problems.push(`${where}: deep import ${spec} (not a public entry)`);
      }
    }
  }
}

if (problems.length) {
  console.error(`import check: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`import check: ${checked} files in ${packages.size} packages, no forbidden imports`);
