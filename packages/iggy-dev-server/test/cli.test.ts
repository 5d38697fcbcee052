import { spawn, spawnSync } from 'node:child_process';
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

  it('refuses an unknown --batch-hashing with exit code 2', () => {
    const r = run(['--batch-hashing', 'simd']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--batch-hashing must be wasm or javascript');
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

describe('agdx-iggy-dev --cluster', () => {
  it('runs n nodes, prints every seed and its state, and obeys control lines on standard input', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', cli, '--cluster', '3', '--port', '0'], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      lines.push(...parts);
    });
    const nextLine = async (count: number): Promise<string> => {
      for (let i = 0; i < 400 && lines.length < count; i++) await new Promise((r) => setTimeout(r, 50));
      const l = lines[count - 1];
      if (l === undefined) throw new Error(`no line ${count}: ${lines.join('\n')}`);
      return l;
    };
    try {
      expect(await nextLine(1)).toMatch(/^agdx-iggy-dev cluster of 3 listening on iggy:\/\/iggy:iggy@127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+ /);
      const initial = JSON.parse(await nextLine(2)) as { view: number; primary: number; nodes: Array<{ port: number }> };
      expect(initial.primary).toBe(0);
      const c = await RawClient.connect(initial.nodes[2]!.port, 'vsr');
      expect((await c.login()).ok).toBe(true);
      c.close();
      child.stdin.write('primary 2\n');
      expect(JSON.parse(await nextLine(3))).toMatchObject({ view: 2, primary: 2 });
      child.stdin.write('stop 2\n');
      expect(JSON.parse(await nextLine(4))).toMatchObject({ primary: 0, nodes: [{ running: true }, { running: true }, { running: false }] });
      child.stdin.write('start 2\nbogus\n');
      expect(JSON.parse(await nextLine(5))).toMatchObject({ nodes: [{}, {}, { running: true }] });
      expect(JSON.parse(await nextLine(6))).toHaveProperty('error');
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses a cluster size out of range', () => {
    expect(run(['--cluster', '1']).status).toBe(2);
    expect(run(['--cluster', 'x']).status).toBe(2);
  });
});
