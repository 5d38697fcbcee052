#!/usr/bin/env node
/** The agdx command: wires process streams and signals to the dispatcher. */

import { setMaxListeners } from 'node:events';
import { runCli } from './cli.js';

// The Iggy transport parks one abort listener per concurrent wait on its own signals; a demo or a
// tail over many partitions holds more than Node's default of 10, which is not a leak.
setMaxListeners(256);

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

// IggyTransport.connect waits between connection attempts on unref'd timers; without a ref'd
// handle Node would exit mid-connect (code 13, nothing printed) when the server is down.
const keepAlive = setInterval(() => {}, 60_000);
const code = await runCli(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  signal: stop.signal,
  isTty: process.stdout.isTTY === true,
});
clearInterval(keepAlive);
process.exitCode = code;
// Open handles of a failed run must not keep the process alive.
setTimeout(() => process.exit(code), 200).unref();
