// The dev server alone, in memory: messages appended per second in batches of 1,000 x 100 bytes.
// The server (the agdx-iggy-dev command, in memory) runs in a child process; the client here is
// minimal so that it is not the bottleneck: a VSR session from @agdx/iggy-protocol on a plain
// node:net socket, every SendMessages frame encoded before the clock starts, PIPELINE frames in
// flight. Stream and topic are created beforehand with @agdx/transport-iggy. Prints one JSON object.
//
// Figures per run: messages acknowledged per wall-clock second, and messages per CPU second of the
// server process (utime + stime from /proc/<pid>/stat, Linux only), which is what the server
// itself costs even when other processes crowd the machine, with the kernel's share of that time
// and the server's minor page faults per request (the in-memory store keeps every batch, so each
// request needs fresh pages). The target is 1,000,000 messages per second.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import {
  CommandCode,
  VsrClientSession,
  VsrFrameSplitter,
  encodeSendMessagesRequest,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { OutgoingMessage, VsrPendingRequest } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { startDevServer } from './support/dev-server.js';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCH = 1000;
const BATCHES_PER_RUN = 100;
const PIPELINE = 8;
const RUNS = 5;
const STREAM = 'bench';
const TOPIC = 'append';
/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** The process's CPU seconds (user, system) and minor page faults so far, or undefined without /proc. */
function processUsage(pid: number): { user: number; system: number; minorFaults: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name: [7] minflt, [11] utime, [12] stime (proc(5), counted from state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND, minorFaults: Number(fields[7]) };
  } catch {
    return undefined;
  }
}

/** A registered VSR session on its own socket, writing prepared frames and counting replies. */
async function connect(port: number): Promise<{ session: VsrClientSession; sendAll: (frames: readonly VsrPendingRequest[]) => Promise<void>; close: () => void }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const session = new VsrClientSession({ sdkName: 'agdx-bench', sdkVersion: '0' });
  const splitter = new VsrFrameSplitter();
  let onReply: (ok: boolean, detail: string) => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    for (const frame of splitter.push(chunk)) {
      const outcome = session.handleFrame(frame);
      onReply(outcome.ok, outcome.ok ? '' : `${outcome.error.code} ${outcome.error.codeName}`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    onReply = (ok, detail) => (ok ? resolve() : reject(new Error(`register refused: ${detail}`)));
    socket.write(session.register({ username: 'iggy', password: 'iggy' }).frame);
  });
  const sendAll = (frames: readonly VsrPendingRequest[]): Promise<void> =>
    new Promise((resolve, reject) => {
      let written = 0;
      let answered = 0;
      onReply = (ok, detail) => {
        if (!ok) return reject(new Error(`SendMessages refused: ${detail}`));
        answered += 1;
        if (answered === frames.length) return resolve();
        if (written < frames.length) socket.write((frames[written++] as VsrPendingRequest).frame);
      };
      while (written < Math.min(PIPELINE, frames.length)) socket.write((frames[written++] as VsrPendingRequest).frame);
    });
  return { session, sendAll, close: () => socket.destroy() };
}

await initChecksums();
const before = machine();
const server = await startDevServer();
const setup = await IggyTransport.connect({ port: server.port, protocol: 'vsr', heartbeatIntervalMs: 0 });
await setup.ensureStream(STREAM);
await setup.ensureTopic({ stream: STREAM, topic: TOPIC }, { partitions: 1 });
await setup.close();
const client = await connect(server.port);

function prepareRun(run: number): VsrPendingRequest[] {
  return Array.from({ length: BATCHES_PER_RUN }, (_, b) => {
    const messages: OutgoingMessage[] = Array.from({ length: BATCH }, (_, i) => {
      const payload = new Uint8Array(RECORD_BYTES);
      payload[0] = i & 0xff;
      payload[1] = b & 0xff;
      payload[2] = run & 0xff;
      return { payload };
    });
    const body = encodeSendMessagesRequest({ stream: STREAM, topic: TOPIC, partitioning: partitioning.partitionId(0), messages }, 'vsr');
    return client.session.command(CommandCode.SendMessages, body);
  });
}

const wall: number[] = [];
const perServerCpu: number[] = [];
const systemShare: number[] = [];
const faultsPerBatch: number[] = [];
try {
  for (let run = 0; run <= RUNS; run++) {
    const frames = prepareRun(run);
    const use0 = processUsage(server.pid);
    const start = performance.now();
    await client.sendAll(frames);
    const seconds = (performance.now() - start) / 1000;
    const use1 = processUsage(server.pid);
    if (run === 0) continue; // warm-up
    const messages = BATCHES_PER_RUN * BATCH;
    wall.push(messages / seconds);
    if (use0 === undefined || use1 === undefined) continue;
    const cpu = use1.user + use1.system - (use0.user + use0.system);
    if (cpu > 0) {
      perServerCpu.push(messages / cpu);
      systemShare.push((use1.system - use0.system) / cpu);
    }
    faultsPerBatch.push((use1.minorFaults - use0.minorFaults) / BATCHES_PER_RUN);
  }
} finally {
  client.close();
  await server.stop();
}

const spread = (values: readonly number[]) =>
  values.length === 0 ? undefined : { min: Math.round(Math.min(...values)), median: Math.round(median(values)), max: Math.round(Math.max(...values)) };
console.log(
  JSON.stringify(
    {
      name: 'iggy-dev-server-append',
      machineBefore: before,
      machineAfter: machine(),
      server: '@agdx/iggy-dev-server (agdx-iggy-dev command, in memory) in a child process, VSR',
      workload: `${RUNS} runs (after one warm-up) of ${BATCHES_PER_RUN} SendMessages of ${BATCH} x ${RECORD_BYTES}-byte messages to one partition, ${PIPELINE} requests in flight, frames encoded before the clock starts`,
      results: {
        messagesPerWallSecond: spread(wall),
        messagesPerServerCpuSecond: spread(perServerCpu),
        serverSystemCpuShare: systemShare.length === 0 ? undefined : { min: Number(Math.min(...systemShare).toFixed(2)), median: Number(median(systemShare).toFixed(2)), max: Number(Math.max(...systemShare).toFixed(2)) },
        serverMinorFaultsPerBatch: spread(faultsPerBatch),
        ratioToTarget: { target: 1_000_000, wall: Number((median(wall) / 1_000_000).toFixed(3)), serverCpu: perServerCpu.length > 0 ? Number((median(perServerCpu) / 1_000_000).toFixed(3)) : undefined },
      },
      notes: 'messagesPerServerCpuSecond divides the messages by the CPU seconds the server process used during the run (10 ms tick resolution, so runs last long enough for that to be under a few per cent); serverSystemCpuShare is the kernel part of that CPU time and serverMinorFaultsPerBatch the minor page faults per 1,000-message request (a batch is about 150 KB, 37 pages of 4 KiB, kept in memory by the store)',
    },
    null,
    2,
  ),
);
