#!/usr/bin/env node
/** The agdx command: wires process streams and signals to the dispatcher. */

import { runCli } from './cli.js';

const stop = new AbortController();
let interrupts = 0;
const onSignal = (): void => {
  interrupts += 1;
  // A second Ctrl-C leaves at once, in case a clean stop hangs.
  if (interrupts > 1) process.exit(130);
  stop.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// A reader that went away (`agdx tail | head`) is the end of the output, not a crash: stop
// quietly, as Unix tools do. Any other output failure is reported once and exits 1.
for (const [stream, name] of [
  [process.stdout, 'stdout'],
  [process.stderr, 'stderr'],
] as const) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    stop.abort();
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    if (name === 'stdout') process.stderr.write(`agdx: cannot write to ${name}: ${error.message}\n`);
    process.exit(1);
  });
}

const code = await runCli(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  signal: stop.signal,
  isTty: process.stdout.isTTY === true,
});
process.exitCode = code;
// Open handles of a failed run must not keep the process alive.
setTimeout(() => process.exit(code), 200).unref();
