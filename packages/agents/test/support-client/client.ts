/** Client construction for the tests: the only thing the seed examples change besides imports. */
import { AgdxClient, type AgdxClientOptions } from '@agdx/agents';
import { MemoryLog, type LogRecord, type LogTransport } from '@agdx/transport';

/** A bootstrapped client over a fresh MemoryLog (stream `demo`, 4 partitions). */
export async function memoryClient(
  options: AgdxClientOptions = {},
  transport: LogTransport = new MemoryLog(),
): Promise<{ laser: AgdxClient; log: LogTransport }> {
  const laser = AgdxClient.from(transport, { stream: 'demo', ...options });
  await laser.bootstrap(4);
  return { laser, log: transport };
}

/** Every record of a topic, partition by partition. */
export async function readAll(log: LogTransport, stream: string, topic: string): Promise<LogRecord[]> {
  const description = await log.describeTopic({ stream, topic });
  const out: LogRecord[] = [];
  for (const p of description.partitions) out.push(...(await log.read({ stream, topic, partition: p.partition, offset: 0n, maxCount: 100_000 })));
  return out;
}

/** Resolves with the first record of `topic` that `match` accepts, following the log without polling. */
export async function nextRecord(
  log: LogTransport,
  stream: string,
  topic: string,
  match: (record: LogRecord) => boolean,
  timeoutMs = 5_000,
): Promise<LogRecord> {
  const started = Date.now();
  const description = await log.describeTopic({ stream, topic });
  const cursors = description.partitions.map(() => 0n);
  for (;;) {
    for (const p of description.partitions) {
      const records = await log.read({ stream, topic, partition: p.partition, offset: cursors[p.partition]!, maxCount: 1000 });
      for (const r of records) {
        cursors[p.partition] = r.offset + 1n;
        if (match(r)) return r;
      }
    }
    if (Date.now() - started > timeoutMs) throw new Error(`no matching record on ${topic}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
