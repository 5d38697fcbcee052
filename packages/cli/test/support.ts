/** Paths, a child-process runner and an in-memory command io shared by the cli tests. */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli, type CommandIo } from '@agdx/cli';

/** The repository root. */
export const REPO_ROOT: string = fileURLToPath(new URL('../../../', import.meta.url));
/** The examples folder. */
export const EXAMPLES_DIR: string = fileURLToPath(new URL('../../../examples/', import.meta.url));
/** The agdx entry point, run from source. */
export const BIN: string = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
/** How every child runs TypeScript from source. */
export const NODE_SOURCE_ARGS: readonly string[] = ['--import', 'tsx', '--conditions=@agdx/source'];

/** What a finished child process left behind. */
export interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Runs `node --import tsx --conditions=@agdx/source <script> ...args`, killed after `timeoutMs`. */
export function runNode(script: string, args: readonly string[], timeoutMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_SOURCE_ARGS, script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Runs the agdx command from source. */
export function runAgdx(args: readonly string[], timeoutMs: number): Promise<ChildResult> {
  return runNode(BIN, args, timeoutMs);
}

/** A command io writing into strings, for runCli in process. */
export function memoryIo(): { io: CommandIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) }, signal: new AbortController().signal, isTty: false },
    out: () => out,
    err: () => err,
  };
}

/** Runs `agdx` in this process with a {@link memoryIo}, and returns the exit code with what it printed. */
export async function agdxInProcess(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = memoryIo();
  const code = await runCli(argv, io);
  return { code, out: out(), err: err() };
}
