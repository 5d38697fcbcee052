/**
 * The workspace bins: pnpm links `agdx` and `agdx-iggy-dev` at install time, before any build,
 * so they must point at files the repository holds and run the source; the published bins
 * (publishConfig.bin) stay on dist/.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Manifest {
  readonly bin: Readonly<Record<string, string>>;
  readonly publishConfig: { readonly bin: Readonly<Record<string, string>> };
}

const PACKAGES = [
  { dir: new URL('../', import.meta.url), name: 'agdx', published: './dist/bin.js', usage: 'Usage: agdx <command>' },
  { dir: new URL('../../iggy-dev-server/', import.meta.url), name: 'agdx-iggy-dev', published: './dist/cli.js', usage: 'Usage: agdx-iggy-dev' },
] as const;

function run(file: URL, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file.pathname, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

describe.each(PACKAGES)('the $name bin', ({ dir, name, published, usage }) => {
  const manifest = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as Manifest;

  it('points at a file in the repository in the workspace, and at dist/ when published', () => {
    const local = manifest.bin[name];
    expect(local).toBeDefined();
    expect(existsSync(new URL(local ?? '', dir))).toBe(true);
    expect(manifest.publishConfig.bin[name]).toBe(published);
  });

  it('runs the source without a build and passes on arguments and the exit code', { timeout: 70_000 }, async () => {
    const bin = new URL(manifest.bin[name] ?? '', dir);
    const help = await run(bin, ['--help']);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(usage);
    const bad = await run(bin, ['--no-such-option']);
    expect(bad.code).toBe(2);
  });
});
