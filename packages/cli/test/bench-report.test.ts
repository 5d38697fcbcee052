/** `agdx bench --report` over saved results, some of them broken: each is that benchmark's failure. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitCode, runCli } from '@agdx/cli';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from './support.js';

let dir: string | undefined;

afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('agdx bench --report', () => {
  it('reports a corrupt saved result as that benchmark failed, keeps the others, and exits 1 with its own kind', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agdx-bench-report-'));
    // --report never runs a benchmark file: empty ones are enough to name them.
    for (const name of ['good', 'corrupt', 'missing']) writeFileSync(join(dir, `${name}.bench.ts`), '');
    const out = join(dir, 'results');
    const { io, out: stdout, err } = memoryIo();
    await runCli(['bench', '--dir', dir, '--out', out, '--list'], io);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'good.json'), JSON.stringify({ ours: { opsPerSec: 10 }, baseline: { opsPerSec: 5 }, ratio: 2 }));
    writeFileSync(join(out, 'corrupt.json'), '{"ours": {"opsPerSec": 1');
    const report = memoryIo();
    expect(await runCli(['bench', '--dir', dir, '--out', out, '--report'], report.io)).toBe(ExitCode.Failure);
    expect(report.err()).toBe('agdx: bench-failed: 2 benchmark(s) failed: corrupt, missing\n');
    expect(report.out()).toMatch(/corrupt\s+0\s+saved result at .*corrupt\.json is not readable JSON/);
    expect(report.out()).toMatch(/good\s+0\s+ok/);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { ratios: unknown[] };
    expect(summary.ratios).toEqual([{ bench: 'good', metric: 'ratio', ratio: 2 }]);
    expect(stdout()).toBe('corrupt\ngood\nmissing\n');
    expect(err()).toBe('');
  });

  it('refuses, as a usage error that writes nothing, a report over a folder holding no saved result', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agdx-bench-report-'));
    writeFileSync(join(dir, 'alone.bench.ts'), '');
    const out = join(dir, 'elsewhere');
    const report = memoryIo();
    expect(await runCli(['bench', '--dir', dir, '--out', out, '--report'], report.io)).toBe(ExitCode.Usage);
    expect(report.err()).toContain(`no saved benchmark result in ${out}`);
    expect(existsSync(out)).toBe(false);
    // An existing folder with other files keeps them untouched.
    mkdirSync(out);
    writeFileSync(join(out, 'summary.json'), 'earlier');
    expect(await runCli(['bench', '--dir', dir, '--out', out, '--report'], memoryIo().io)).toBe(ExitCode.Usage);
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe('earlier');
    expect(existsSync(join(out, 'ratios.svg'))).toBe(false);
  });
});
