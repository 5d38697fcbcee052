/** --help on every subcommand, usage errors (exit 2), runtime failures (exit 1), one-line errors. */
import { COMMANDS, ExitCode, runCli, type CommandIo } from '@agdx/cli';
import { describe, expect, it } from 'vitest';
import { memoryIo, runAgdx } from './support.js';

describe('agdx --help', () => {
  it('lists every command and the exit codes', async () => {
    const { io, out } = memoryIo();
    expect(await runCli(['--help'], io)).toBe(ExitCode.Ok);
    for (const command of COMMANDS) expect(out()).toContain(`  ${command.name}`);
    expect(out()).toContain('Exit codes: 0 success, 1 runtime failure, 2 usage error.');
  });

  for (const command of COMMANDS) {
    it(`agdx ${command.name} --help prints its usage and exits 0`, async () => {
      const { io, out, err } = memoryIo();
      expect(await runCli([command.name, '--help'], io)).toBe(ExitCode.Ok);
      expect(out()).toContain(`Usage: agdx ${command.name}`);
      expect(out()).toContain('Exit codes:');
      expect(err()).toBe('');
    });
  }
});

describe('usage errors exit 2 with one line', () => {
  const cases: readonly (readonly string[])[] = [
    [],
    ['frobnicate'],
    ['demo', '--bogus'],
    ['demo', '--port', 'eighty'],
    ['demo', 'extra'],
    ['dev', '--fsync', 'sometimes'],
    ['dev', '--port', '70000'],
    ['dev', '--idle-timeout', 'soon'],
    ['dev', '--cluster', '1'],
    ['dev', '--cluster', 'three'],
    ['dev', '--cluster', '3', '--port', '65535'],
    ['dev', '--max-connections', '0', '--port', '0'],
    ['dev', '--user', '', '--port', '0'],
    ['tail', '--kind', 'responses'],
    ['tail', '--iggy', 'iggy://a:b@127.0.0.1:99999'],
    ['sessions', 'list', '--iggy', 'http://127.0.0.1:8090'],
    ['users', 'list', '--iggy', 'iggy://iggy:iggy@[::1'],
    ['tokens', 'list', '--iggy', 'iggy://iggy:iggy@127.0.0.1:8090?protocol=bogus'],
    ['demo', '--iggy', 'ftp://127.0.0.1:8090'],
    ['tail', '--from', 'middle'],
    ['tail', '--from', '2026-13-45T99:00:00Z'],
    ['tail', '--from', 'yesterday'],
    ['tail', '--conversation', 'not-an-id'],
    ['tail', '--limit'],
    ['sessions'],
    ['sessions', 'drop'],
    ['sessions', 'show'],
    ['sessions', 'list', '--status', 'sleepy'],
    ['bench', '--runs', '-3'],
    ['users'],
    ['users', 'rename'],
    ['users', 'create', 'ann'],
    ['users', 'update', 'ann'],
    ['users', 'update', 'ann', '--status', 'asleep'],
    ['users', 'permissions', 'ann'],
    ['users', 'permissions', 'ann', '--global', 'fly'],
    ['users', 'permissions', 'ann', '--stream', 'abc:read-stream'],
    ['users', 'permissions', 'ann', '--topic', '1:read-topic'],
    ['users', 'password', 'ann', '--current', 'x'],
    ['tokens'],
    ['tokens', 'create'],
    ['tokens', 'create', 'ci', '--expiry', '5 minutes'],
    ['tokens', 'delete', 'a', 'b'],
  ];
  for (const argv of cases) {
    it(`agdx ${argv.join(' ') || '(nothing)'}`, async () => {
      const { io, err } = memoryIo();
      expect(await runCli(argv, io)).toBe(ExitCode.Usage);
      if (argv.length > 0) {
        expect(err()).toMatch(/^agdx: usage: .+\n$/);
        expect(err().split('\n')).toHaveLength(2);
      }
    });
  }
});

describe('the bin', () => {
  it('exits 2 on a usage error and 0 on --help', async () => {
    const usage = await runAgdx(['tail', '--nope'], 30_000);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^agdx: usage: /);
    const help = await runAgdx(['sessions', '--help'], 30_000);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: agdx sessions list');
  }, 70_000);

  it('exits 1 with one typed line when the server is unreachable', async () => {
    const result = await runAgdx(['sessions', 'list', '--iggy', 'iggy://iggy:iggy@127.0.0.1:1'], 30_000);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^agdx: transport: .+$/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  }, 40_000);
});

describe('agdx dev --cluster', () => {
  it('starts the nodes, prints every node as a seed, and stops when the signal fires', async () => {
    const controller = new AbortController();
    let out = '';
    const io: CommandIo = { out: { write: (t: string) => (out += t) }, err: { write: () => undefined }, signal: controller.signal, isTty: false };
    const running = runCli(['dev', '--cluster', '3', '--port', '0'], io);
    for (let i = 0; i < 200 && !out.includes('\n'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(out).toMatch(/^agdx dev listening on iggy:\/\/iggy:iggy@127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+ \(cluster of 3, no replication; in memory/);
    controller.abort();
    expect(await running).toBe(ExitCode.Ok);
  }, 30_000);
});
