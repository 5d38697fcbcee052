/**
 * Minified + gzipped sizes of the neutral packages' browser entries, measured from the built
 * `dist/` as a user's bundler would see them: esbuild, browser platform, minified, tree-shaken,
 * the packages' own dependencies bundled in and peer dependencies left out (the user brings them).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** One measured bundle. */
export interface SizeEntry {
  readonly name: string;
  readonly minifiedBytes: number;
  readonly gzippedBytes: number;
  /** The input files, relative to the repository root, that ended up in the bundle. */
  readonly inputs: readonly string[];
}

/** The runtime-neutral packages (DESIGN.md section 3): everything but the Node-only ones. */
export const NEUTRAL_PACKAGES = ['wire', 'sign', 'transport', 'agents', 'sessions', 'bridge-kit', 'bridge-a2a', 'bridge-mcp', 'agui', 'ai-sdk', 'otel'];

/**
 * Bundles `source`, an ES module importing the package's built entry (`./dist/index.js`) from
 * inside `packages/<pkg>`, so its dependencies resolve as they would for an installed package.
 */
export async function measure(name: string, pkg: string, source: string, external: readonly string[] = []): Promise<SizeEntry> {
  const result = await build({
    stdin: { contents: source, resolveDir: `${root}packages/${pkg}`, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    external: [...external],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { name, minifiedBytes: code.byteLength, gzippedBytes: gzipSync(code, { level: 9 }).byteLength, inputs: bundledInputs(result.metafile) };
}

function bundledInputs(metafile: Metafile): string[] {
  const output = Object.values(metafile.outputs)[0];
  return Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

/** The peer dependencies of a package: left out of its bundle, as the user provides them. */
export function peersOf(pkg: string): string[] {
  const manifest = JSON.parse(readFileSync(`${root}packages/${pkg}/package.json`, 'utf8')) as { peerDependencies?: Record<string, string> };
  return Object.keys(manifest.peerDependencies ?? {});
}

/** Every neutral package's whole public entry, and `encodeEnvelope` alone. */
export async function measureAll(): Promise<SizeEntry[]> {
  const entries = await Promise.all(NEUTRAL_PACKAGES.map((pkg) => measure(`@agdx/${pkg}`, pkg, `export * from './dist/index.js';`, peersOf(pkg))));
  entries.push(await measure('encodeEnvelope only', 'wire', `export { encodeEnvelope } from './dist/index.js';`));
  return entries;
}
