// MemoryLog speed: appends and reads per second for 100-byte records in batches of 1, 100 and
// 1,000, against a plain array push of the same records (copying the bytes) measured in the same
// run, plus the wake-up latency of a waiting reader. Prints one JSON object.
import { MemoryLog, type AppendRecord } from '@agdx/transport';
import { median, percentile } from './support/stats.js';

const RECORD_BYTES = 100;
const RECORDS_PER_RUN = 200_000;
const RUNS = 7;
const BATCHES = [1, 100, 1000] as const;
const WAKEUPS = 2000;

const gc = (globalThis as { gc?: () => void }).gc;

function makeBatches(size: number): AppendRecord[][] {
  const batches: AppendRecord[][] = [];
  for (let b = 0; b < RECORDS_PER_RUN / size; b++) {
    const batch: AppendRecord[] = [];
    for (let i = 0; i < size; i++) {
      const payload = new Uint8Array(RECORD_BYTES);
      payload[0] = i & 0xff;
      payload[1] = b & 0xff;
      batch.push({ payload });
    }
    batches.push(batch);
  }
  return batches;
}

/** The floor: keep each record by pushing a copy of its bytes onto an array. */
function baselinePush(batches: AppendRecord[][]): number {
  gc?.();
  const kept: { headers: unknown; payload: Uint8Array }[] = [];
  const start = performance.now();
  for (const batch of batches) {
    for (let i = 0; i < batch.length; i++) {
      const record = batch[i] as AppendRecord;
      const payload = new Uint8Array(record.payload.length);
      payload.set(record.payload);
      kept.push({ headers: record.headers, payload });
    }
  }
  const ms = performance.now() - start;
  if (kept.length !== RECORDS_PER_RUN) throw new Error('baseline lost records');
  return RECORDS_PER_RUN / (ms / 1000);
}

async function memoryAppend(batches: AppendRecord[][]): Promise<{ rate: number; log: MemoryLog }> {
  gc?.();
  const log = new MemoryLog();
  await log.ensureStream('bench');
  await log.ensureTopic({ stream: 'bench', topic: 't' }, { partitions: 1 });
  const routing = { partition: 0 };
  const start = performance.now();
  for (const records of batches) await log.append({ stream: 'bench', topic: 't', routing, records });
  const ms = performance.now() - start;
  return { rate: RECORDS_PER_RUN / (ms / 1000), log };
}

async function memoryRead(log: MemoryLog, maxCount: number): Promise<number> {
  let offset = 0n;
  let seen = 0;
  const start = performance.now();
  while (seen < RECORDS_PER_RUN) {
    const records = await log.read({ stream: 'bench', topic: 't', partition: 0, offset, maxCount });
    if (records.length === 0) throw new Error('read ran dry');
    seen += records.length;
    offset += BigInt(records.length);
  }
  const ms = performance.now() - start;
  return seen / (ms / 1000);
}

async function wakeupLatencies(): Promise<number[]> {
  const log = new MemoryLog();
  await log.ensureStream('bench');
  await log.ensureTopic({ stream: 'bench', topic: 'wake' }, { partitions: 1 });
  const payload = new Uint8Array(RECORD_BYTES);
  const latencies: number[] = [];
  for (let i = 0; i < WAKEUPS; i++) {
    let appendedAt = 0;
    const woken = log
      .waitFor({ stream: 'bench', topic: 'wake', partition: 0, offset: BigInt(i), timeoutMs: 10_000 })
      .then((ok) => {
        if (!ok) throw new Error('waiter timed out');
        return performance.now() - appendedAt;
      });
    // Let the waiter block first, as a real reader would between records.
    await new Promise((resolve) => setImmediate(resolve));
    appendedAt = performance.now();
    await log.append({ stream: 'bench', topic: 'wake', routing: { partition: 0 }, records: [{ payload }] });
    latencies.push((await woken) * 1000);
  }
  return latencies;
}

const append: Record<string, unknown> = {};
const read: Record<string, unknown> = {};
for (const size of BATCHES) {
  const batches = makeBatches(size);
  const ours: number[] = [];
  const base: number[] = [];
  const reads: number[] = [];
  const ratios: number[] = [];
  // One warm-up round of each, then measured rounds interleaved so both see the same machine state.
  baselinePush(batches);
  await memoryAppend(batches);
  for (let run = 0; run < RUNS; run++) {
    const b = baselinePush(batches);
    const { rate, log } = await memoryAppend(batches);
    base.push(b);
    ours.push(rate);
    ratios.push(b / rate);
    reads.push(await memoryRead(log, size));
    await log.close();
  }
  append[`batch${size}`] = {
    memoryLogRecordsPerSec: Math.round(median(ours)),
    baselineArrayPushRecordsPerSec: Math.round(median(base)),
    ratio: Number(median(ratios).toFixed(2)),
  };
  read[`maxCount${size}`] = { memoryLogRecordsPerSec: Math.round(median(reads)) };
}

const latencies = await wakeupLatencies();
const result = {
  name: 'transport',
  environment: { node: process.version, platform: process.platform, arch: process.arch, gcExposed: gc !== undefined },
  config: { recordBytes: RECORD_BYTES, recordsPerRun: RECORDS_PER_RUN, runs: RUNS, wakeups: WAKEUPS },
  append,
  read,
  wakeup: {
    p50Micros: Number(percentile(latencies, 50).toFixed(1)),
    p99Micros: Number(percentile(latencies, 99).toFixed(1)),
  },
  notes:
    'ratio = MemoryLog append cost per record / plain array push of {headers, copy of payload} per record (copy = new Uint8Array + set, the fastest plain copy) (median of per-run ratios); lower is better, 1 = as cheap as the copy',
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
