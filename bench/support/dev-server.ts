// Starts the Iggy dev server (the agdx-iggy-dev command, from source) in a child process on a
// free loopback port, for benchmarks that need a real server across a process boundary.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = fileURLToPath(new URL('../../packages/iggy-dev-server/src/cli.ts', import.meta.url));
const cpuReport = fileURLToPath(new URL('./cpu-report.ts', import.meta.url));

/** A running dev server: its port and process id, and how to stop it (resolves once the process exited). */
export interface DevServer {
  readonly port: number;
  /** The server process id (for reading its CPU time from /proc). */
  readonly pid: number;
  /** The server process's own CPU time so far (user + system, `process.cpuUsage`), in µs. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Spawns `agdx-iggy-dev --port 0 ...args` and resolves with the port it printed. `checkout`
 * runs the server of another checkout of this repository (its dependencies installed), for a
 * baseline of earlier code measured in the same run; `env` adds variables to the server's
 * environment (this process's environment is inherited either way).
 */
export async function startDevServer(args: readonly string[] = [], checkout?: string, env?: Readonly<Record<string, string>>): Promise<DevServer> {
  const profile = process.env.AGDX_SERVER_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AGDX_SERVER_PROF}`] : [];
  const dir = checkout === undefined ? root : resolve(checkout);
  const entry = checkout === undefined ? cli : join(dir, 'packages/iggy-dev-server/src/cli.ts');
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', '--import', cpuReport, '--conditions=@agdx/source', entry, '--port', '0', ...args], {
    cwd: dir,
    env: env === undefined ? process.env : { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  // the child's channel must not keep the benchmark alive either
  child.channel?.unref();
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /@[^\s]+:(\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`dev server exited with ${String(code)}`)));
  });
  // one question at a time: each answer is the next `cpuMicros` message
  let asking: Promise<unknown> = Promise.resolve();
  const ask = (): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      const onMessage = (m: unknown): void => {
        const micros = (m as { cpuMicros?: unknown } | null)?.cpuMicros;
        if (typeof micros !== 'number') return;
        child.off('message', onMessage);
        resolve(micros);
      };
      child.on('message', onMessage);
      if (child.send?.('cpu') !== true) {
        child.off('message', onMessage);
        reject(new Error('the dev server has no IPC channel'));
      }
    });
  return {
    port,
    pid: child.pid ?? 0,
    cpuMicros: () => {
      const next = asking.then(ask, ask);
      asking = next.catch(() => undefined);
      return next;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exit = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exit;
    },
  };
}
