/** Child processes for the runtime matrix: run one to its end, or start a server and read its port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** What a finished child printed. */
export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` to its end, killing it after `timeoutMs` (a hung runtime must fail, not hang). */
export function runToEnd(command: string, args: string[], options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The last line of `stdout` that parses as JSON with a `results` array. */
export function lastJson<T>(finished: Finished): T {
  const lines = finished.stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line) as T;
    } catch {
      // Not the report line: runtimes may print warnings first.
    }
  }
  throw new Error(`no JSON report (exit ${finished.code}):\n${finished.stdout}\n${finished.stderr}`);
}

/**
 * Starts workerd on 127.0.0.1 port 0 and resolves with the port it bound. workerd reports its
 * listening sockets as JSON lines on the control file descriptor (fd 3 here).
 */
export function startWorkerd(binary: string, config: string, cwd: string, timeoutMs: number): Promise<{ port: number; child: ChildProcess; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve', config, '--control-fd=3', '--socket-addr=http=127.0.0.1:0'], { cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.resume();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`workerd did not listen within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`workerd exited (${code}):\n${stderr}`));
    });
    const control = child.stdio[3];
    if (!control || !('on' in control)) throw new Error('no control pipe');
    createInterface({ input: control as NodeJS.ReadableStream }).on('line', (line) => {
      const event = JSON.parse(line) as { event?: string; socket?: string; port?: number };
      if (event.event === 'listen' && event.socket === 'http' && typeof event.port === 'number') {
        clearTimeout(timer);
        resolve({ port: event.port, child, stderr: () => stderr });
      }
    });
  });
}
