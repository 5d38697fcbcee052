import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from './helpers/raw-client.js';
import { exited, startChildServer } from './helpers/child-server.js';
import type { ChildServer } from './helpers/child-server.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const children: ChildServer[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.process.kill('SIGKILL');
    await exited(c.process);
  }
});

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', cli, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('agdx-iggy-dev', () => {
  it('prints its usage with --help', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--port');
    expect(r.stdout).toContain('production runs Apache Iggy');
    expect(r.stdout).toContain('--pre-login-timeout <n>');
    expect(r.stdout).toContain('--login-failures-per-address <n>');
  });

  it('refuses bad options with exit code 2', () => {
    expect(run(['--fsync', 'sometimes']).status).toBe(2);
    expect(run(['--port', '70000']).status).toBe(2);
    expect(run(['--nope']).status).toBe(2);
    expect(run(['--pre-login-timeout', 'soon']).status).toBe(2);
  });

  it('prints one line with its URL, serves, and stops cleanly on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const child = await startChildServer(['--port', '0', '--user', 'admin', '--password', 's3cret!']);
      children.push(child);
      expect(child.url).toBe(`iggy://admin:s3cret!@127.0.0.1:${child.port}`);
      const c = await RawClient.connect(child.port, 'classic');
      expect((await c.login('admin', 's3cret!')).ok).toBe(true);
      c.close();
      const exit = new Promise<number | null>((resolve) => child.process.once('exit', (code) => resolve(code)));
      child.process.kill(signal);
      expect(await exit).toBe(0);
    }
  }, 60_000);
});
