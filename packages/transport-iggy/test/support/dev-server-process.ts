/**
 * Runs @agdx/iggy-dev-server's command-line entry in a child process (its source through tsx),
 * so these tests talk to the real dev server over loopback TCP from another process, without a
 * package dependency (the dev server's own tests already depend on this package).
 */

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A dev server running in a child process. */
export interface DevServerProcess {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../../iggy-dev-server/src/cli.ts', import.meta.url));

/** Starts the dev server on an ephemeral port; rejects after `timeoutMs` without a listening line. */
export async function startDevServerProcess(timeoutMs = 20_000): Promise<DevServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', CLI, '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the dev server did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    lines.on('line', (line) => {
      const match = /listening on (iggy:\/\/\S+)/.exec(line);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the dev server exited with ${code}: ${stderr}`));
    });
  });
  const port = Number(/:(\d+)$/.exec(url)?.[1]);
  return {
    url,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
