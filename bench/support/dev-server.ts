// Starts the Iggy dev server (the agdx-iggy-dev command, from source) in a child process on a
// free loopback port, for benchmarks that need a real server across a process boundary.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = fileURLToPath(new URL('../../packages/iggy-dev-server/src/cli.ts', import.meta.url));

/** A running dev server: its port and process id, and how to stop it (resolves once the process exited). */
export interface DevServer {
  readonly port: number;
  /** The server process id (for reading its CPU time from /proc). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** Spawns `agdx-iggy-dev --port 0 ...args` and resolves with the port it printed. */
export async function startDevServer(args: readonly string[] = []): Promise<DevServer> {
  const child: ChildProcess = spawn(process.execPath, [...(process.env.AGDX_SERVER_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AGDX_SERVER_PROF}`] : []), '--import', 'tsx', '--conditions=@agdx/source', cli, '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /@[^\s]+:(\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`dev server exited with ${String(code)}`)));
  });
  return {
    port,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exit = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exit;
    },
  };
}
