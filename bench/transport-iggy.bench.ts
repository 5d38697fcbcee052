// IggyTransport speed over loopback TCP, client and server in separate processes: messages per
// second sent and polled for 100-byte payloads in batches of 1, 100 and 1,000 with each
// protocol, single-send latency p50/p99, and the payload bytes per second as a ratio to a raw
// node:net socket pushing the same bytes in the same run. Prints one JSON object.
// The server process runs @agdx/iggy-dev-server in memory.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { IggyTransport } from '@agdx/transport-iggy';
import { rawPush } from './support/raw-push.js';
import { batchesOf, sendThenPoll } from './support/send-and-poll.js';
import { median, percentile } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCHES = [1, 100, 1000] as const;
/** Messages per measured run, per batch size (batch 1 is round-trip bound, so fewer). */
const MESSAGES: Record<(typeof BATCHES)[number], number> = { 1: 2_000, 100: 20_000, 1000: 40_000 };
const RUNS = 3;
const LATENCY_SENDS = 1_000;

interface ServerInfo {
  readonly port: number;
  readonly sinkPort: number;
  readonly server: string;
}

// ---------------------------------------------------------------------------------------------
// Server process
// ---------------------------------------------------------------------------------------------

/** A sink that reads `[total u64]` then that many bytes and answers one byte. */
function startSink(): Promise<number> {
  const server = net.createServer((socket) => {
    let expected = -1;
    let seen = 0;
    let head = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (expected < 0) {
        head = Buffer.concat([head, chunk]);
        if (head.length < 8) return;
        expected = Number(head.readBigUInt64LE(0));
        seen = head.length - 8;
      } else {
        seen += chunk.length;
      }
      if (seen >= expected) {
        socket.write(Uint8Array.of(1));
        expected = -1;
        head = Buffer.alloc(0);
        seen = 0;
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

async function serve(): Promise<void> {
  const { startDevServer } = await import('@agdx/iggy-dev-server');
  const port = (await startDevServer({ port: 0 })).port;
  const kind = '@agdx/iggy-dev-server (in memory)';
  const sinkPort = await startSink();
  process.stdout.write(`${JSON.stringify({ port, sinkPort, server: kind })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// Client process
// ---------------------------------------------------------------------------------------------

async function startServerProcess(): Promise<{ info: ServerInfo; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as ServerInfo));
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return { info, stop: () => child.stdin.end() };
}

async function measure(info: ServerInfo, protocol: 'vsr' | 'classic'): Promise<Record<string, unknown>> {
  const t = await IggyTransport.connect({ port: info.port, protocol, heartbeatIntervalMs: 0 });
  const out: Record<string, unknown> = {};
  try {
    const stream = `bench-${protocol}-${Date.now().toString(36)}`;
    await t.ensureStream(stream);
    for (const size of BATCHES) {
      const messages = MESSAGES[size];
      const batches = batchesOf(size, messages, RECORD_BYTES);
      const sends: number[] = [];
      const polls: number[] = [];
      const raws: number[] = [];
      const ratios: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const topic = `b${size}-${run}`;
        await t.ensureTopic({ stream, topic }, { partitions: 1 });
        const raw = await rawPush(info.sinkPort, messages * RECORD_BYTES, size * RECORD_BYTES);
        const { sendRate, pollRate } = await sendThenPoll(t, stream, topic, batches, size);
        if (run === 0) continue; // warm-up
        sends.push(sendRate);
        polls.push(pollRate);
        raws.push(raw);
        ratios.push((sendRate * RECORD_BYTES) / raw);
      }
      out[`batch${size}`] = {
        messages,
        sentPerSecond: Math.round(median(sends)),
        polledPerSecond: Math.round(median(polls)),
        sentPayloadBytesPerSecond: Math.round(median(sends) * RECORD_BYTES),
        rawSocketBytesPerSecond: Math.round(median(raws)),
        sentBytesRatioToRawSocket: Number(median(ratios).toFixed(4)),
      };
    }
    const topic = 'latency';
    await t.ensureTopic({ stream, topic }, { partitions: 1 });
    const payload = new Uint8Array(RECORD_BYTES);
    const micros: number[] = [];
    for (let i = 0; i < LATENCY_SENDS + 100; i++) {
      const start = performance.now();
      await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload }] });
      if (i >= 100) micros.push((performance.now() - start) * 1000);
    }
    out.singleSendLatencyMicros = { p50: Math.round(percentile(micros, 50)), p99: Math.round(percentile(micros, 99)), sends: LATENCY_SENDS };
    // Concurrent single sends: 16 writers over 1 and over 4 shared connections.
    for (const connections of [1, 4]) {
      const pooled = await IggyTransport.connect({ port: info.port, protocol, heartbeatIntervalMs: 0, connections });
      try {
        const rates: number[] = [];
        for (let run = 0; run <= RUNS; run++) {
          const ctopic = `concurrent-${connections}-${run}`;
          await pooled.ensureTopic({ stream, topic: ctopic }, { partitions: 1 });
          const perWriter = 125;
          const start = performance.now();
          await Promise.all(
            Array.from({ length: 16 }, async () => {
              for (let i = 0; i < perWriter; i++) await pooled.append({ stream, topic: ctopic, routing: { partition: 0 }, records: [{ payload }] });
            }),
          );
          if (run > 0) rates.push((16 * perWriter) / ((performance.now() - start) / 1000));
        }
        out[`batch1Concurrent16Writers${connections}Connections`] = { sentPerSecond: Math.round(median(rates)) };
      } finally {
        await pooled.close();
      }
    }
  } finally {
    await t.close();
  }
  return out;
}

async function main(): Promise<void> {
  const { info, stop } = await startServerProcess();
  try {
    const results: Record<string, unknown> = {};
    for (const protocol of ['vsr', 'classic'] as const) results[protocol] = await measure(info, protocol);
    process.stdout.write(
      `${JSON.stringify(
        {
          name: 'transport-iggy',
          environment: { node: process.version, platform: `${process.platform}-${process.arch}`, server: info.server, loopback: true, separateProcesses: true },
          recordBytes: RECORD_BYTES,
          runs: RUNS,
          note: 'medians over the measured runs (one warm-up run first); sentBytesRatioToRawSocket = payload bytes/s sent through IggyTransport divided by a raw node:net socket pushing the same bytes in writes of one batch each, measured in the same run',
          baseline: 'raw node:net socket to a byte-counting sink in the server process',
          results,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    stop();
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
