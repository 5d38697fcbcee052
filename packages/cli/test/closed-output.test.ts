/**
 * `agdx … | head`: when the reader of the output goes away, the command stops quietly with its
 * own exit code instead of crashing on an unhandled EPIPE.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../src/bin.ts', import.meta.url).pathname;

/** Runs `agdx args`, reads its first output line, then closes the pipe, as `| head -1` does. */
function firstLineThenClose(args: readonly string[]): Promise<{ code: number | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let first = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (first.includes('\n')) return;
      first += chunk;
      if (first.includes('\n')) child.stdout.destroy();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, first: first.split('\n')[0] ?? '', stderr });
    });
  });
}

describe('output whose reader went away', () => {
  it('the demo stops quietly with exit 0 after its reader closed the pipe', { timeout: 70_000 }, async () => {
    const run = await firstLineThenClose(['demo']);
    expect(run.first).toMatch(/^agdx demo:/);
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(run.code).toBe(0);
  });
});
