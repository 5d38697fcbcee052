/**
 * Child processes of the crash suite: the dev server and agents run as separate Node processes
 * (from TypeScript source through tsx) so they can be killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** A running child and the first line it printed after its marker. */
export interface Child {
  readonly process: ChildProcess;
  readonly line: string;
}

/**
 * Starts `entry` (a file of this folder) with `args` and resolves once it printed a line that
 * starts with `marker`; rejects when it exits first or after `timeoutMs`.
 */
export function startChild(entry: string, args: readonly string[], marker: string, timeoutMs = 30_000): Promise<Child> {
  const file = fileURLToPath(new URL(entry, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', file, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not start: ${out} ${err}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      if (err.length < 4_000) err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith(marker));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve({ process: child, line: line.slice(marker.length).trim() });
      }
      if (out.length > 4_000) out = out.slice(-1_000);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited (${String(code ?? signal)}): ${out} ${err}`));
    });
  });
}

/** Resolves once the child has exited. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGKILLs the child and waits for it to be gone. */
export async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await exited(child);
}
