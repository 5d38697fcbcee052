/**
 * Runs `agdx-iggy-dev --cluster N` (the dev server's source through tsx) in a child process and
 * steers it with its control lines (`primary i`, `stop i`, `start i`, `status`), so the client
 * meets a cluster over real loopback TCP in another process, without a package dependency.
 */

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The cluster's state as the control lines report it. */
export interface ClusterState {
  readonly view: number;
  readonly primary: number;
  readonly nodes: ReadonlyArray<{ readonly index: number; readonly port: number; readonly running: boolean }>;
}

/** A cluster running in a child process. */
export interface DevClusterProcess extends AsyncDisposable {
  /** `iggy://iggy:iggy@h:p1,h:p2,...`. */
  readonly url: string;
  /** The state at start. */
  readonly initial: ClusterState;
  /** Sends one control line and resolves with the state it reports (rejects on an error line). */
  control(line: string): Promise<ClusterState>;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../../iggy-dev-server/src/cli.ts', import.meta.url));

/** Starts a cluster of `nodes` on ephemeral ports; rejects after `timeoutMs` without its state line. */
export async function startDevClusterProcess(nodes: number, extraArgs: readonly string[] = [], timeoutMs = 20_000): Promise<DevClusterProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', CLI, '--cluster', String(nodes), '--port', '0', ...extraArgs], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const waiting: Array<(line: string) => void> = [];
  const early: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next === undefined) early.push(line);
    else next(line);
  });
  const nextLine = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const ready = early.shift();
      if (ready !== undefined) return resolve(ready);
      const timer = setTimeout(() => reject(new Error(`the dev cluster said nothing for ${timeoutMs} ms: ${stderr}`)), timeoutMs);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(kill);
  };
  try {
    const banner = await nextLine();
    const url = /listening on (iggy:\/\/\S+)/.exec(banner)?.[1];
    if (url === undefined) throw new Error(`unexpected first line: ${banner}`);
    const initial = JSON.parse(await nextLine()) as ClusterState;
    // One control line at a time: each answer belongs to the line before it.
    let queue: Promise<unknown> = Promise.resolve();
    const control = (line: string): Promise<ClusterState> => {
      const run = queue.then(async () => {
        child.stdin.write(`${line}\n`);
        const answer = JSON.parse(await nextLine()) as ClusterState | { error: string };
        if ('error' in answer) throw new Error(answer.error);
        return answer;
      });
      queue = run.catch(() => undefined);
      return run;
    };
    return { url, initial, control, stop, [Symbol.asyncDispose]: stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
