/**
 * Child process of `close-while-reconnecting.test.ts`: connects to the server at `argv[2]`, says
 * `connected`, waits for `cut` on stdin (the parent has stopped the server), makes a call that
 * queues behind the reconnect, closes the transport and says `closed`. It must then exit on its
 * own: nothing of the transport (a back-off timer, a socket being opened) may keep it alive.
 */
import { createInterface } from 'node:readline';
import { IggyTransport } from '@agdx/transport-iggy';

const [url = '', protocol = 'vsr'] = process.argv.slice(2);
const t = await IggyTransport.connect(`${url}?protocol=${protocol}`, {
  heartbeatIntervalMs: 0,
  // Long pauses and timeouts: the child outlives them only if close() leaves them running.
  connectTimeoutMs: 120_000,
  requestTimeoutMs: 120_000,
  reconnect: { maxAttempts: 5, initialDelayMs: 60_000, maxDelayMs: 60_000 },
});
console.log('connected');
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();
process.stdin.destroy();
const queued = t.describeTopic({ stream: 's', topic: 't' }).then(
  () => 'resolved',
  (error: unknown) => String((error as { kind?: string }).kind),
);
// Give the first reconnect attempt a moment to be refused, so close() lands in the back-off.
await new Promise((resolve) => setTimeout(resolve, 100));
await t.close();
console.log(`closed ${await queued}`);
