/** Parsing of the `agdx-iggy-dev` command line. */

import { parseArgs } from 'node:util';
import { limitFlagSpecs, limitFlagsHelp, limitOptionsFromFlags } from './limit-flags.js';
import type { DevServerOptions } from './options.js';

/** The command's usage text. */
export const USAGE: string = `Usage: agdx-iggy-dev [options]

A development server that speaks the Apache Iggy TCP protocol (VSR 0.11 and classic 0.10 on
one port). For development and tests only: production runs Apache Iggy.

Options:
  --port <n>          TCP port (default 8090; 0 = any free port)
  --host <addr>       interface to listen on (default 127.0.0.1)
  --data <dir>        keep data in this folder (default: in memory)
  --fsync <policy>    with --data: always | interval | never (default always)
  --user <name>       root user name (default iggy)
  --password <pw>     root password (default iggy)
  --token <pat>       a static token that logs in as the root user (repeatable)
  --batch-hashing <h> how admitted VSR batches are hashed: wasm | javascript (default wasm)
  --cluster <n>       run n nodes (2..16) sharing one broker (no replication), serving one declared
                      cluster view on ports port..port+n-1 (any free ports with --port 0);
                      standard input takes: primary [i] | stop i | start i | status
  -h, --help          show this help

Connection and login limits:
${limitFlagsHelp()}
`;

/** What the command line asks for. */
export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'start'; readonly options: DevServerOptions; readonly cluster?: number | undefined }
  | { readonly kind: 'error'; readonly message: string };

/** Parses arguments (without the node and script paths). */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        fsync: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        token: { type: 'string', multiple: true },
        cluster: { type: 'string' },
        'batch-hashing': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...limitFlagSpecs(),
      },
    }));
  } catch (error) {
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
  if (values.help === true) return { kind: 'help' };
  const port = values.port === undefined ? 8090 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { kind: 'error', message: `--port must be 0..65535, got ${values.port ?? ''}` };
  const fsync = values.fsync;
  if (fsync !== undefined && fsync !== 'always' && fsync !== 'interval' && fsync !== 'never') return { kind: 'error', message: `--fsync must be always, interval or never, got ${fsync}` };
  const batchHashing = values['batch-hashing'];
  if (batchHashing !== undefined && batchHashing !== 'wasm' && batchHashing !== 'javascript') return { kind: 'error', message: `--batch-hashing must be wasm or javascript, got ${batchHashing}` };
  const limits = limitOptionsFromFlags(values);
  if ('error' in limits) return { kind: 'error', message: limits.error };
  const cluster = values.cluster === undefined ? undefined : Number(values.cluster);
  if (cluster !== undefined && (!Number.isInteger(cluster) || cluster < 2 || cluster > 16)) return { kind: 'error', message: `--cluster must be 2..16, got ${values.cluster ?? ''}` };
  return {
    kind: 'start',
    cluster,
    options: {
      ...limits.options,
      port,
      host: values.host,
      data: values.data,
      fsync,
      user: values.user,
      password: values.password,
      tokens: values.token,
      batchHashing,
    },
  };
}
