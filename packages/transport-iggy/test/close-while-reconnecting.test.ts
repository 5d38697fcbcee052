/**
 * `close()` while the connection is being re-established: the queued call settles with
 * `ClosedError`, and nothing of the transport keeps the process alive afterwards (the back-off
 * pause and a socket attempt in progress end with the close). Checked in a child process, which
 * must exit long before the 60 s back-off it was configured with would have ended.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startFakeServer } from './support/fake-iggy-server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./support/close-while-reconnecting.ts', import.meta.url));

describe.each(['vsr', 'classic'] as const)('close() during a reconnect over %s', (protocol) => {
  it('settles the queued call and lets the process exit', async () => {
    const server = await startFakeServer();
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', CHILD, server.url, protocol], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines: string[] = [];
    const reader = createInterface({ input: child.stdout });
    const seen = (text: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (lines.some((l) => l.startsWith(text))) resolve();
        };
        reader.on('line', (line) => {
          lines.push(line);
          check();
        });
        void exited.then(() => reject(new Error(`child exited before "${text}": ${stderr}`)));
        check();
      });
    try {
      await seen('connected');
      // The server goes away for good: the child's reconnect is refused and pauses 60 s.
      await server.close();
      child.stdin.write('cut\n');
      await seen('closed');
      expect(lines).toContain('closed closed');
      // A real hang lasts the 60 s back-off; a clean exit takes well under the test's timeout.
      const code = await exited;
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await server.close().catch(() => undefined);
    }
  }, 45_000);
});
