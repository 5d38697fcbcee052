// The Iggy client alone: @agdx/transport-iggy sending batches of 1,000 x 100-byte messages to a
// sink process that speaks just enough Iggy to acknowledge them without decoding or storing
// (bench/support/iggy-sink.ts), against a raw node:net socket pushing the same payload bytes to
// the same process, in alternating rounds. Both protocol generations. Prints one JSON object.
//
// Figures: payload bytes per wall-clock second (the client waits for each batch's acknowledgement
// before sending the next, as LogTransport.append does; the raw socket streams with backpressure
// only), the ratio client / raw per round and its median, and the client's CPU microseconds per
// batch (this process, all threads) beside the raw socket's, whose quotient (raw CPU / client CPU
// per batch, i.e. payload bytes per CPU second of the client / of the raw socket) moves far less on
// a loaded machine than wall time does. The target is a ratio of at least 0.5.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { IggyTransport } from '@agdx/transport-iggy';
import { machine } from './support/machine.js';
import { rawPush } from './support/raw-push.js';
import { batchesOf } from './support/send-and-poll.js';
import type { SinkPorts } from './support/iggy-sink.js';
import { median } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCH = 1000;
const MESSAGES = 200_000;
const ROUNDS = 7;

async function startSink(): Promise<{ ports: SinkPorts; stop: () => void }> {
  const script = fileURLToPath(new URL('./support/iggy-sink.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const ports = await new Promise<SinkPorts>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as SinkPorts));
    child.once('exit', (code) => reject(new Error(`sink process exited with ${String(code)}`)));
  });
  return { ports, stop: () => child.stdin.end() };
}

const spreadOf = (values: readonly number[], digits = 0) => {
  const f = (v: number): number => Number(v.toFixed(digits));
  return { min: f(Math.min(...values)), median: f(median(values)), max: f(Math.max(...values)) };
};

async function measure(ports: SinkPorts, protocol: 'vsr' | 'classic') {
  const t = await IggyTransport.connect({ port: protocol === 'vsr' ? ports.vsr : ports.classic, protocol, heartbeatIntervalMs: 0 });
  const batches = batchesOf(BATCH, MESSAGES, RECORD_BYTES);
  const total = MESSAGES * RECORD_BYTES;
  const send = async (): Promise<{ bytesPerSecond: number; cpuMicrosPerBatch: number }> => {
    const c0 = process.cpuUsage();
    const start = performance.now();
    for (const records of batches) await t.append({ stream: 'sink', topic: 'sink', routing: { partition: 0 }, records });
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(c0);
    return { bytesPerSecond: total / (ms / 1000), cpuMicrosPerBatch: (cpu.user + cpu.system) / batches.length };
  };
  // The raw push with this process's CPU time around it, per batch-sized write.
  const raw = async (): Promise<{ bytesPerSecond: number; cpuMicrosPerBatch: number }> => {
    const c0 = process.cpuUsage();
    const bytesPerSecond = await rawPush(ports.raw, total, BATCH * RECORD_BYTES);
    const cpu = process.cpuUsage(c0);
    return { bytesPerSecond, cpuMicrosPerBatch: (cpu.user + cpu.system) / batches.length };
  };
  const client: number[] = [];
  const rawRates: number[] = [];
  const ratios: number[] = [];
  const cpu: number[] = [];
  const rawCpu: number[] = [];
  const cpuRatios: number[] = [];
  try {
    await send(); // warm-up: JIT, socket buffers
    await raw();
    for (let round = 0; round < ROUNDS; round++) {
      let c: { bytesPerSecond: number; cpuMicrosPerBatch: number };
      let r: { bytesPerSecond: number; cpuMicrosPerBatch: number };
      if (round % 2 === 0) {
        c = await send();
        r = await raw();
      } else {
        r = await raw();
        c = await send();
      }
      client.push(c.bytesPerSecond);
      cpu.push(c.cpuMicrosPerBatch);
      rawRates.push(r.bytesPerSecond);
      rawCpu.push(r.cpuMicrosPerBatch);
      ratios.push(c.bytesPerSecond / r.bytesPerSecond);
      cpuRatios.push(r.cpuMicrosPerBatch / c.cpuMicrosPerBatch);
    }
  } finally {
    await t.close();
  }
  return {
    clientPayloadBytesPerSecond: spreadOf(client),
    clientMessagesPerSecond: Math.round(median(client) / RECORD_BYTES),
    rawSocketBytesPerSecond: spreadOf(rawRates),
    clientCpuMicrosPerBatch: spreadOf(cpu),
    rawSocketCpuMicrosPerBatch: spreadOf(rawCpu),
    ratioPerRound: ratios.map((x) => Number(x.toFixed(3))),
    ratioToRawSocket: spreadOf(ratios, 3),
    cpuRatioToRawSocket: spreadOf(cpuRatios, 3),
  };
}

const before = machine();
const { ports, stop } = await startSink();
try {
  const vsr = await measure(ports, 'vsr');
  const classic = await measure(ports, 'classic');
  console.log(
    JSON.stringify(
      {
        name: 'iggy-client-sink',
        machineBefore: before,
        machineAfter: machine(),
        workload: `${MESSAGES / BATCH} batches of ${BATCH} x ${RECORD_BYTES}-byte messages per run (${(MESSAGES * RECORD_BYTES) / 1e6} MB of payload), one batch in flight, partition 0`,
        server: 'bench/support/iggy-sink.ts in a child process: acknowledges SendMessages without decoding or storing the batch',
        baseline: 'a raw node:net socket from this process to the same child process, pushing the same payload bytes in writes of one batch each, waiting only for one final acknowledgement',
        method: `${ROUNDS} rounds after one warm-up of each; client and raw alternate which goes first; ratioToRawSocket = client payload bytes per wall second / raw bytes per wall second within a round; cpuRatioToRawSocket = raw CPU per batch / client CPU per batch (this process) within a round; medians over rounds`,
        target: 'ratioToRawSocket.median >= 0.5 (issue 17 item 3)',
        results: { vsr, classic },
      },
      null,
      2,
    ),
  );
} finally {
  stop();
}
