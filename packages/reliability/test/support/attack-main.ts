/**
 * Child-process entry: the lockout attack against a dev server on 127.0.0.1. Arguments: <port>
 * <hostile sockets>. Prints `OPEN <n>` every 100 ms, and `STATS <json>` then exits on SIGTERM.
 */
import { startAttack } from './lockout-scenario.js';

const [port, count] = process.argv.slice(2).map(Number);
const attack = startAttack(port ?? 0, count ?? 0);
const report = setInterval(() => process.stdout.write(`OPEN ${attack.open()}\n`), 100);
process.stdout.write('STARTED\n');
process.once('SIGTERM', () => {
  clearInterval(report);
  void attack.stop().then((stats) => {
    process.stdout.write(`STATS ${JSON.stringify(stats)}\n`);
    process.exit(0);
  });
});
