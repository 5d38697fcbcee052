#!/usr/bin/env node
/** The `agdx-iggy-dev` command: starts a dev server and stops it cleanly on SIGINT or SIGTERM. */

import { parseCliArgs, USAGE } from './cli-args.js';
import { startDevServer } from './dev-server.js';

async function main(): Promise<number> {
  const command = parseCliArgs(process.argv.slice(2));
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.kind === 'error') {
    process.stderr.write(`agdx-iggy-dev: ${command.message}\n\n${USAGE}`);
    return 2;
  }
  let server;
  try {
    server = await startDevServer({
      ...command.options,
      onInternalError: (error) => process.stderr.write(`agdx-iggy-dev: internal error (connection dropped): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
      onStorageError: (error) => process.stderr.write(`agdx-iggy-dev: ${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}\n`),
    });
  } catch (error) {
    process.stderr.write(`agdx-iggy-dev: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const where = command.options.data === undefined ? 'in memory' : `data in ${command.options.data}`;
  process.stdout.write(`agdx-iggy-dev listening on ${server.url} (${where}; development and tests only)\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agdx-iggy-dev: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
