/**
 * Builds what each runtime runs from the one smoke suite, with esbuild. Node, Deno and Bun get
 * the suite with the `@agdx/*` imports left bare, so each runtime resolves the built packages
 * through their `exports` maps itself; workerd and Chromium get one bundle, as a Worker or a
 * web page would ship it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const root = fileURLToPath(new URL('../../', import.meta.url));
// Inside the repository, so that a bare `@agdx/*` import finds the workspace's node_modules.
export const outDir = fileURLToPath(new URL('../../.test-results/runtimes/', import.meta.url));
const here = fileURLToPath(new URL('./', import.meta.url));

/** The neutral packages the suite imports; each must be built before the matrix runs. */
export const SMOKE_PACKAGES = ['agents', 'agui', 'bridge-a2a', 'bridge-kit', 'bridge-mcp', 'sessions', 'sign', 'transport', 'wire'];

/** Throws, naming the command, when a package the suite needs has no `dist/` yet. */
export function assertBuilt(): void {
  const missing = SMOKE_PACKAGES.filter((name) => !existsSync(`${root}packages/${name}/dist/index.js`));
  if (missing.length) throw new Error(`not built: ${missing.join(', ')}; run \`pnpm run build\` first`);
}

/** Writes `cli.mjs`, `worker.mjs` and `browser.js` into {@link outDir}. */
export async function buildSmokeBundles(): Promise<{ cli: string; worker: string; browser: string }> {
  assertBuilt();
  mkdirSync(outDir, { recursive: true });
  const common = { bundle: true, logLevel: 'silent', target: 'es2022', legalComments: 'none' } as const;
  await Promise.all([
    build({ ...common, entryPoints: [`${here}cli-entry.ts`], outfile: `${outDir}cli.mjs`, format: 'esm', platform: 'neutral', packages: 'external' }),
    build({ ...common, entryPoints: [`${here}worker-entry.ts`], outfile: `${outDir}worker.mjs`, format: 'esm', platform: 'browser' }),
    build({ ...common, entryPoints: [`${here}browser-entry.ts`], outfile: `${outDir}browser.js`, format: 'iife', platform: 'browser' }),
  ]);
  return { cli: `${outDir}cli.mjs`, worker: `${outDir}worker.mjs`, browser: `${outDir}browser.js` };
}
