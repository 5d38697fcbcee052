/** Runs the `agdx-iggy-dev` command from source in a child process (for crash tests). */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** A running child server. */
export interface ChildServer {
  readonly process: ChildProcess;
  readonly port: number;
  readonly url: string;
}

/** Starts the CLI with `args` and resolves once it printed its URL. */
export function startChildServer(args: readonly string[], timeoutMs = 20_000): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', cli, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start: ${out} ${err}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /(iggy:\/\/\S+):(\d+)/.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ process: child, port: Number(match[2]), url: `${match[1]}:${match[2]}` });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${String(code)}: ${out} ${err}`));
    });
  });
}

/** Resolves once the child has exited. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
