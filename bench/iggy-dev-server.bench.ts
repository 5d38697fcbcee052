// @agdx/iggy-dev-server speed: messages per second sent and polled for 100-byte payloads in
// batches of 1, 100 and 1,000, with each protocol generation, against the server in memory, on
// disk with fsync after every batch, and on disk with fsync off. The server runs the
// agdx-iggy-dev command in a child process; the client (@agdx/transport-iggy) runs here, over
// loopback. The baseline is the in-memory server measured in the same run: the disk figures
// carry their ratio to it. Prints one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IggyTransport } from '@agdx/transport-iggy';
import { startDevServer } from './support/dev-server.js';
import { batchesOf, sendThenPoll } from './support/send-and-poll.js';
import { median } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCHES = [1, 100, 1000] as const;
type Mode = 'memory' | 'disk-fsync-always' | 'disk-fsync-never';
const MODES: readonly Mode[] = ['memory', 'disk-fsync-always', 'disk-fsync-never'];
/** Messages per measured run (batch 1 is round-trip bound, and fsync-bound on disk, so fewer). */
const MESSAGES: Record<Mode, Record<(typeof BATCHES)[number], number>> = {
  memory: { 1: 1_000, 100: 10_000, 1000: 20_000 },
  'disk-fsync-always': { 1: 200, 100: 4_000, 1000: 20_000 },
  'disk-fsync-never': { 1: 1_000, 100: 10_000, 1000: 20_000 },
};
const RUNS = 3;

async function startServer(mode: Mode): Promise<{ port: number; stop: () => Promise<void> }> {
  const data = mode === 'memory' ? undefined : mkdtempSync(join(tmpdir(), 'agdx-iggy-bench-'));
  const server = await startDevServer(data === undefined ? [] : ['--data', data, '--fsync', mode === 'disk-fsync-always' ? 'always' : 'never']);
  return {
    port: server.port,
    stop: async () => {
      await server.stop();
      if (data !== undefined) rmSync(data, { recursive: true, force: true });
    },
  };
}

async function measure(port: number, protocol: 'vsr' | 'classic', mode: Mode): Promise<Record<string, { messages: number; sentPerSecond: number; polledPerSecond: number }>> {
  const t = await IggyTransport.connect({ port, protocol, heartbeatIntervalMs: 0 });
  const out: Record<string, { messages: number; sentPerSecond: number; polledPerSecond: number }> = {};
  try {
    const stream = `bench-${protocol}`;
    await t.ensureStream(stream);
    for (const size of BATCHES) {
      const messages = MESSAGES[mode][size];
      const batches = batchesOf(size, messages, RECORD_BYTES);
      const sends: number[] = [];
      const polls: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const topic = `b${size}-${run}`;
        await t.ensureTopic({ stream, topic }, { partitions: 1 });
        const { sendRate, pollRate } = await sendThenPoll(t, stream, topic, batches, size);
        if (run === 0) continue; // warm-up
        sends.push(sendRate);
        polls.push(pollRate);
      }
      out[`batch${size}`] = { messages, sentPerSecond: Math.round(median(sends)), polledPerSecond: Math.round(median(polls)) };
    }
  } finally {
    await t.close();
  }
  return out;
}

async function main(): Promise<void> {
  const results: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const mode of MODES) {
    const server = await startServer(mode);
    try {
      results[mode] = {};
      for (const protocol of ['vsr', 'classic'] as const) (results[mode] as Record<string, unknown>)[protocol] = await measure(server.port, protocol, mode);
    } finally {
      await server.stop();
    }
  }
  const ratios: Record<string, unknown> = {};
  for (const mode of MODES.filter((m) => m !== 'memory')) {
    const perProtocol: Record<string, unknown> = {};
    for (const protocol of ['vsr', 'classic'] as const) {
      const perBatch: Record<string, unknown> = {};
      for (const size of BATCHES) {
        const disk = (results[mode]?.[protocol] as Record<string, { sentPerSecond: number; polledPerSecond: number }>)[`batch${size}`];
        const memory = (results.memory?.[protocol] as Record<string, { sentPerSecond: number; polledPerSecond: number }>)[`batch${size}`];
        if (disk === undefined || memory === undefined) continue;
        perBatch[`batch${size}`] = { sent: Number((disk.sentPerSecond / memory.sentPerSecond).toFixed(3)), polled: Number((disk.polledPerSecond / memory.polledPerSecond).toFixed(3)) };
      }
      perProtocol[protocol] = perBatch;
    }
    ratios[mode] = perProtocol;
  }
  process.stdout.write(
    `${JSON.stringify(
      {
        name: 'iggy-dev-server',
        environment: { node: process.version, platform: `${process.platform}-${process.arch}`, client: '@agdx/transport-iggy', loopback: true, separateProcesses: true },
        recordBytes: RECORD_BYTES,
        runs: RUNS,
        note: 'medians over the measured runs (one warm-up run first); one request in flight at a time; the server is the agdx-iggy-dev command in a child process',
        baseline: 'the in-memory server, measured in the same run',
        results,
        ratioToMemory: ratios,
      },
      null,
      2,
    )}\n`,
  );
}

await main();
