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

/**
 * Copies a batch's payloads, in order, to the start of `out`; returns the bytes written. A function
 * of its own, hot across all batches, so that the baseline's copy is compiled like any producer's.
 */
function gatherInto(out: Uint8Array, batch: readonly { payload: Uint8Array }[]): number {
  let at = 0;
  for (let i = 0; i < batch.length; i++) {
    const payload = (batch[i] as { payload: Uint8Array }).payload;
    out.set(payload, at);
    at += payload.length;
  }
  return at;
}

/**
 * The raw socket given the same records the client is given: each batch's payloads, in order, are
 * gathered into one batch-sized write (the least any socket user holding separate records must
 * do: one copy per record, one write per batch), honouring backpressure, then one final answer is
 * awaited. The writes rotate through a few buffers, each reused only once its write has completed,
 * so what goes on the wire is always the records' own bytes. Returns payload bytes per wall second.
 */
export async function rawPushRecords(sinkPort: number, batches: readonly (readonly { payload: Uint8Array }[])[]): Promise<number> {
  const socket = await connectRaw(sinkPort);
  let total = 0;
  let largest = 0;
  for (const batch of batches) {
    let bytes = 0;
    for (const record of batch) bytes += record.payload.length;
    total += bytes;
    largest = Math.max(largest, bytes);
  }
  const RING = 4;
  const buffers = Array.from({ length: RING }, () => new Uint8Array(largest));
  const written: (Promise<void> | undefined)[] = new Array<Promise<void> | undefined>(RING).fill(undefined);
  const head = new Uint8Array(8);
  new DataView(head.buffer).setBigUint64(0, BigInt(total), true);
  const acked = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  const start = performance.now();
  socket.write(head);
  for (let b = 0; b < batches.length; b++) {
    const slot = b % RING;
    await written[slot];
    const out = buffers[slot] as Uint8Array;
    const at = gatherInto(out, batches[b] as readonly { payload: Uint8Array }[]);
    let done!: () => void;
    written[slot] = new Promise<void>((resolve) => (done = resolve));
    if (!socket.write(out.subarray(0, at), () => done())) await new Promise((r) => socket.once('drain', r));
  }
  await acked;
  const ms = performance.now() - start;
  socket.destroy();
  return total / (ms / 1000);
}
