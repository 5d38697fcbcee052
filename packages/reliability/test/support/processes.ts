/**
 * Child processes of the crash suite: the dev server and agents run as separate Node processes
 * (from TypeScript source through tsx) so they can be killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on every Linux build Node ships for). */
const USER_HZ = 100;

/**
 * CPU time (user + system) another process has used so far, in µs, read from `/proc/<pid>/stat`
 * (10 ms resolution); undefined without a pid or off Linux.
 */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1_000_000) / USER_HZ;
}
