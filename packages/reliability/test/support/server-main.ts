/**
 * Child-process entry: a dev server, on disk with fsync always, or in memory when the data
 * folder is `-`. Prints `URL <url>` once listening. Arguments: <port> <data folder | ->.
 */
import { startDevServer } from '@agdx/iggy-dev-server';

const [port, data] = process.argv.slice(2);
const server = await startDevServer(data === undefined || data === '-' ? { port: Number(port ?? 0) } : { port: Number(port ?? 0), data, fsync: 'always' });
process.stdout.write(`URL ${server.url}\n`);
const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
