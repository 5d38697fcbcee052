// WebAssembly is an explicit opt-in: the main entry's bundle compiles none (edge runtimes forbid
// it) and works in a runtime that has none, the ./wasm-checksums entry is the only place that
// compiles it, and the deprecated `initChecksums({ wasmBatchHashing: true })` still loads it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { checksumsReady, encodeMessageBatch, initChecksums, wasmBatchHashingReady, xxh32, xxh3_64 } from '@agdx/iggy-protocol';
import { expectedXxh3, loadReference, pattern } from './support/xxh3-reference.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** The code and input files of `entry` bundled for a browser, as a user's bundler would. */
async function bundle(entry: string): Promise<{ code: string; inputs: string[] }> {
  const result = await build({ entryPoints: [`${packageDir}src/${entry}`], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, metafile: true, logLevel: 'silent' });
  return { code: result.outputFiles[0]?.text ?? '', inputs: Object.keys(result.metafile.inputs) };
}

beforeAll(async () => {
  await loadReference();
});

describe('the main entry', () => {
  it('bundles without WebAssembly, hash-wasm or the batch hasher module', async () => {
    const { code, inputs } = await bundle('index.ts');
    expect(code).not.toMatch(/WebAssembly/);
    expect(inputs.filter((path) => /hash-wasm|xxh3-wasm/.test(path))).toEqual([]);
    expect(inputs.some((path) => path.includes('js-xxhash'))).toBe(true);
  });

  it('is the only entry the WebAssembly compile is left out of: ./wasm-checksums has it', async () => {
    const { code, inputs } = await bundle('wasm-checksums.ts');
    expect(code).toMatch(/WebAssembly\.instantiate/);
    expect(inputs.some((path) => path.includes('xxh3-wasm-binary'))).toBe(true);
  });

  it('hashes, encodes and verifies in a runtime without WebAssembly, where the opt-in refuses with kind unsupported', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--jitless', '--import', 'tsx', '--conditions=@agdx/source', 'test/support/no-wasm-child.ts'], { cwd: packageDir });
    const long = Uint8Array.from({ length: 5000 }, (_, i) => (i * 31 + 7) & 0xff);
    expect(JSON.parse(stdout.trim().split('\n').at(-1) as string)).toEqual({
      webAssembly: 'undefined',
      xxh3Long: expectedXxh3(long).toString(16),
      xxh3Stream: expectedXxh3(long).toString(16),
      xxh32: xxh32(long),
      frames: 20,
      load: { name: 'IggyUnsupportedError', kind: 'unsupported' },
    });
  });
});

describe('initChecksums (kept for compatibility)', () => {
  it('resolves at once and is not needed: hashing works before it', async () => {
    expect(checksumsReady()).toBe(true);
    const before = xxh3_64(pattern(300, 1));
    await initChecksums();
    expect(wasmBatchHashingReady()).toBe(false);
    expect(xxh3_64(pattern(300, 1))).toBe(before);
  });

  it('with the deprecated wasmBatchHashing option loads the WebAssembly batch hasher, same bytes', async () => {
    const messages = Array.from({ length: 300 }, (_, i) => ({ id: BigInt(i + 1), payload: pattern(100, i), originTimestamp: 5n }));
    const javascript = encodeMessageBatch(messages);
    await initChecksums({ wasmBatchHashing: true });
    expect(wasmBatchHashingReady()).toBe(true);
    expect(encodeMessageBatch(messages)).toEqual(javascript);
    expect(xxh3_64(pattern(9000, 2))).toBe(expectedXxh3(pattern(9000, 2)));
  });
});
