/** `agdx dev`: the Iggy dev server, with the options of `agdx-iggy-dev`. */

import { DevServerError, describeRecovery, limitFlagSpecs, limitFlagsHelp, limitOptionsFromFlags, startDevCluster, startDevServer } from '@agdx/iggy-dev-server';
import { intOption, listOption, parseCommandArgs, stringOption } from '../args.js';
import { UsageError } from '../errors.js';
import { line } from '../io.js';
import type { Command } from './command.js';

const HELP = `Usage: agdx dev [options]

Starts a development server that speaks the Apache Iggy TCP protocol (VSR 0.11 and classic 0.10
on one port), the same server as agdx-iggy-dev. For development and tests only: production runs
Apache Iggy. Prints one line with the connection URL, then runs until Ctrl-C (SIGINT/SIGTERM).

Options:
  --port <n>          TCP port (default 8090; 0 = any free port)
  --host <addr>       interface to listen on (default 127.0.0.1)
  --data <dir>        keep data in this folder (default: in memory)
  --fsync <policy>    with --data: always | interval | never (default always)
  --user <name>       root user name (default iggy)
  --password <pw>     root password (default iggy)
  --token <pat>       accept this personal access token (repeatable)
  --cluster <n>       run n nodes (2..16) on ports port..port+n-1 that share one broker and
                      serve one declared cluster view (node 0 primary; no replication). To move
                      the primary from a script, run agdx-iggy-dev --cluster n, which takes
                      control lines on standard input
  -h, --help          this help

Connection and login limits:
${limitFlagsHelp()}

Exit codes: 0 stopped cleanly, 1 the server could not start, 2 a usage error.`;

/**
 * Starts the server; an option it refuses (kind `invalid`: a limit out of range, an empty user)
 * came from a flag, so it is a usage error (exit 2), not a server failure.
 */
async function startOrUsage<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof DevServerError && error.kind === 'invalid') throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** `agdx dev`. */
export const devCommand: Command = {
  name: 'dev',
  summary: 'start the Iggy dev server (development and tests only)',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        fsync: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        token: { type: 'string', multiple: true },
        ...limitFlagSpecs(),
        cluster: { type: 'string' },
      },
      false,
    );
    if (args.values['help'] === true) return line(io.out, HELP);
    const fsync = stringOption(args, 'fsync');
    if (fsync !== undefined && fsync !== 'always' && fsync !== 'interval' && fsync !== 'never') throw new UsageError(`--fsync must be always, interval or never, got "${fsync}"`);
    const data = stringOption(args, 'data');
    const tokens = listOption(args, 'token');
    const limits = limitOptionsFromFlags(args.values);
    if ('error' in limits) throw new UsageError(limits.error);
    const nodes = stringOption(args, 'cluster') === undefined ? undefined : intOption(args, 'cluster', 3, 2, 16);
    const port = intOption(args, 'port', 8090, 0, 65_535);
    // A cluster takes port..port+n-1 (port 0: any free ports), so the last one must exist too.
    if (nodes !== undefined && port !== 0 && port + nodes - 1 > 65_535) throw new UsageError(`--port ${port} leaves no room for ${nodes} nodes on ports port..port+${nodes - 1} (at most ${65_536 - nodes})`);
    const start = nodes === undefined ? startDevServer : (o: Parameters<typeof startDevCluster>[0]) => startDevCluster({ ...o, nodes });
    const server = await startOrUsage(async () => start({
      ...limits.options,
      port,
      host: stringOption(args, 'host'),
      data,
      fsync,
      user: stringOption(args, 'user'),
      password: stringOption(args, 'password'),
      tokens: tokens.length > 0 ? tokens : undefined,
      onInternalError: (error) => line(io.err, `agdx dev: internal error (connection dropped): ${error instanceof Error ? error.message : String(error)}`),
      onStorageError: (error) => line(io.err, `agdx dev: ${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`),
      onRecovery: (notice) => line(io.err, `agdx dev: ${describeRecovery(notice)}`),
    }));
    const shape = nodes === undefined ? '' : `cluster of ${nodes}, no replication; `;
    line(io.out, `agdx dev listening on ${server.url} (${shape}${data === undefined ? 'in memory' : `data in ${data}`}; development and tests only)`);
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) return resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
  },
};
