// Runs a package's TypeScript entry in a child Node process with tsx and the `@agdx/source`
// export condition, for the workspace bins (packages/*/workspace-bin). A child process because
// export conditions can only be set when Node starts.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs `entry` (a file URL of a .ts file) with this process's arguments and stdio, and exits
 * with its exit code. Ctrl-C reaches the child from the terminal; SIGTERM sent to this process
 * is passed on, so the command's own clean stop runs.
 */
export function runSource(entry) {
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, '--conditions=@agdx/source', fileURLToPath(entry), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  // The terminal sends SIGINT to the whole process group; this process waits for the child.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('error', (error) => {
    process.stderr.write(`agdx: could not start node: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal === 'SIGINT' ? 130 : 1));
  });
}
