// The send-then-poll measurement the Iggy benchmarks share: a batch workload, appended to one
// partition and read back in pages of the batch size.
import type { LogTransport } from '@agdx/transport';

/** `messages / size` batches of `size` records of `recordBytes` bytes each (first two bytes vary). */
export function batchesOf(size: number, messages: number, recordBytes: number): { payload: Uint8Array }[][] {
  return Array.from({ length: messages / size }, (_, b) =>
    Array.from({ length: size }, (_, i) => {
      const payload = new Uint8Array(recordBytes);
      payload[0] = i & 0xff;
      payload[1] = b & 0xff;
      return { payload };
    }),
  );
}

/** Appends every batch to partition 0 of the topic, then polls it all back; records per second of each. */
export async function sendThenPoll(
  t: LogTransport,
  stream: string,
  topic: string,
  batches: readonly { payload: Uint8Array }[][],
  pageSize: number,
): Promise<{ sendRate: number; pollRate: number }> {
  const messages = batches.reduce((n, batch) => n + batch.length, 0);
  let start = performance.now();
  for (const records of batches) await t.append({ stream, topic, routing: { partition: 0 }, records });
  const sendRate = messages / ((performance.now() - start) / 1000);
  start = performance.now();
  let offset = 0n;
  while (offset < BigInt(messages)) {
    const got = await t.read({ stream, topic, partition: 0, offset, maxCount: pageSize });
    if (got.length === 0) throw new Error('poll ran dry');
    offset += BigInt(got.length);
  }
  return { sendRate, pollRate: messages / ((performance.now() - start) / 1000) };
}
