// The raw-socket baseline of the Iggy client benchmarks: the same payload bytes pushed through a
// plain node:net socket to a sink that only counts them.
import net from 'node:net';

/** A loopback connection to the raw sink, without Nagle's delay. */
async function connectRaw(sinkPort: number): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port: sinkPort });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

/**
 * Connects to a raw sink (reads `[total u64 LE]`, then that many bytes, answers one byte), pushes
 * `total` bytes in writes of `chunk` bytes (honouring backpressure) and waits for the answer.
 * Returns payload bytes per wall-clock second.
 */
export async function rawPush(sinkPort: number, total: number, chunk: number): Promise<number> {
  const socket = await connectRaw(sinkPort);
  const data = new Uint8Array(chunk).fill(7);
  const head = new Uint8Array(8);
  new DataView(head.buffer).setBigUint64(0, BigInt(total), true);
  const acked = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  const start = performance.now();
  socket.write(head);
  let sent = 0;
  while (sent < total) {
    const n = Math.min(chunk, total - sent);
    if (!socket.write(n === chunk ? data : data.subarray(0, n))) await new Promise((r) => socket.once('drain', r));
    sent += n;
  }
  await acked;
  const ms = performance.now() - start;
  socket.destroy();
  return total / (ms / 1000);
}

/**
 * The same bytes as {@link rawPush} in the client's request/acknowledge pattern: each `chunk`
 * goes as its own `[chunk u64 LE][chunk bytes]` exchange and the next waits for the one-byte
 * answer. Separates what one acknowledged write per batch costs any socket from what the Iggy
 * client adds on top. Returns payload bytes per wall-clock second.
 */
export async function rawPushAcked(sinkPort: number, total: number, chunk: number): Promise<number> {
  const socket = await connectRaw(sinkPort);
  const data = new Uint8Array(8 + chunk).fill(7);
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const n = Math.min(chunk, total - sent);
    new DataView(data.buffer).setBigUint64(0, BigInt(n), true);
    const acked = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write(data.subarray(0, 8 + n));
    await acked;
    sent += n;
  }
  const ms = performance.now() - start;
  socket.destroy();
  return total / (ms / 1000);
}
