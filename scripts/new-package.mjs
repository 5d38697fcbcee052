// Scaffolds packages/<dir> with the house layout; used once per new package.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [dir, description, depsJson = '{}', subpathsJson = '[]'] = process.argv.slice(2);
if (!dir || !description) {
  console.error('usage: node scripts/new-package.mjs <dir> <description> [depsJson] [subpathsJson]');
  process.exit(2);
}
const root = join('packages', dir);
if (existsSync(join(root, 'package.json'))) {
  console.error(`${root} exists`);
  process.exit(1);
}
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(root, 'test'), { recursive: true });
const subpaths = JSON.parse(subpathsJson);
const entry = (srcBase) => ({
  '@agdx/source': `./src/${srcBase}.ts`,
  types: `./dist/${srcBase}.d.ts`,
  default: `./dist/${srcBase}.js`,
});
const published = (srcBase) => ({ types: `./dist/${srcBase}.d.ts`, default: `./dist/${srcBase}.js` });
const exportsMap = { '.': entry('index') };
const publishExports = { '.': published('index') };
for (const sub of subpaths) {
  exportsMap[`./${sub}`] = entry(`${sub}/index`);
  publishExports[`./${sub}`] = published(`${sub}/index`);
}
exportsMap['./package.json'] = './package.json';
publishExports['./package.json'] = './package.json';
const pkg = {
  name: `@agdx/${dir}`,
  version: '0.1.0',
  description,
  license: 'Apache-2.0',
  type: 'module',
  sideEffects: false,
  engines: { node: '>=20.19' },
  exports: exportsMap,
  publishConfig: { access: 'public', exports: publishExports },
  files: ['dist', 'README.md'],
  scripts: { build: 'tsc -p tsconfig.build.json', test: 'node ../../scripts/test-package.mjs' },
  dependencies: JSON.parse(depsJson),
};
writeFileSync(join(root, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
writeFileSync(
  join(root, 'tsconfig.build.json'),
  JSON.stringify(
    {
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: 'src', outDir: 'dist', tsBuildInfoFile: 'dist/.tsbuildinfo' },
      include: ['src/**/*.ts'],
    },
    null,
    2,
  ) + '\n',
);
if (!existsSync(join(root, 'src/index.ts'))) {
  writeFileSync(join(root, 'src/index.ts'), `/**\n * ${description}\n * @module\n */\nexport {};\n`);
}
console.log(`created ${root}`);
