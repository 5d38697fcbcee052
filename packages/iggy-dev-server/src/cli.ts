#!/usr/bin/env node
/** The `agdx-iggy-dev` command: starts a dev server and stops it cleanly on SIGINT or SIGTERM. */

import { createInterface } from 'node:readline';
import { parseCliArgs, USAGE } from './cli-args.js';
import type { CliCommand } from './cli-args.js';
import { clusterStatus, runControlLine } from './cluster/control.js';
import { startDevCluster } from './cluster/dev-cluster.js';
import { startDevServer } from './dev-server.js';
import type { RecoveryNotice } from './storage/recovery-notice.js';
import { describeRecovery } from './storage/recovery-notice.js';

function reportInternalError(error: unknown): void {
  process.stderr.write(`agdx-iggy-dev: internal error (connection dropped): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
}

function reportStorageError(error: Error & { cause?: unknown }): void {
  process.stderr.write(`agdx-iggy-dev: ${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}\n`);
}

function reportRecovery(notice: RecoveryNotice): void {
  process.stderr.write(`agdx-iggy-dev: ${describeRecovery(notice)}\n`);
}

function stopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** `--cluster n`: the nodes in this process, steered by control lines on standard input. */
async function runCluster(command: Extract<CliCommand, { kind: 'start' }>, nodes: number): Promise<number> {
  let cluster;
  try {
    cluster = await startDevCluster({ ...command.options, nodes, onInternalError: reportInternalError, onStorageError: reportStorageError, onRecovery: reportRecovery });
  } catch (error) {
    process.stderr.write(`agdx-iggy-dev: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const where = command.options.data === undefined ? 'in memory' : `data in ${command.options.data}`;
  process.stdout.write(`agdx-iggy-dev cluster of ${nodes} listening on ${cluster.url} (${where}; no replication; development and tests only)\n`);
  process.stdout.write(`${clusterStatus(cluster)}\n`);
  const lines = createInterface({ input: process.stdin, terminal: false });
  // Control lines run one at a time, in order, so `stop 0` then `start 0` cannot overlap.
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    queue = queue.then(async () => {
      process.stdout.write(`${await runControlLine(cluster, line)}\n`);
    });
  });
  await stopped();
  lines.close();
  await queue;
  await cluster.close();
  return 0;
}

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
  if (command.cluster !== undefined) return runCluster(command, command.cluster);
  let server;
  try {
    server = await startDevServer({
      ...command.options,
      onInternalError: reportInternalError,
      onStorageError: reportStorageError,
      onRecovery: reportRecovery,
    });
  } catch (error) {
    process.stderr.write(`agdx-iggy-dev: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const where = command.options.data === undefined ? 'in memory' : `data in ${command.options.data}`;
  process.stdout.write(`agdx-iggy-dev listening on ${server.url} (${where}; development and tests only)\n`);
  await stopped();
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
