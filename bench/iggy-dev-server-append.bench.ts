// The dev server alone, in memory: messages appended per second in batches of 1,000 x 100 bytes.
// The server (the agdx-iggy-dev command, in memory) runs in a child process; the client here is
// minimal so that it is not the bottleneck: a VSR session from @agdx/iggy-protocol on a plain
// node:net socket, every SendMessages frame encoded before the clock starts, PIPELINE frames in
// flight. Stream and topic are created beforehand with @agdx/transport-iggy. Prints one JSON object.
//
// Two servers run side by side and the runs alternate between them (which goes first flips every
// round): ours, hashing admitted batches with the WebAssembly XXH3 (`--batch-hashing wasm`, the
// default), and the baseline, by default the same server hashing in JavaScript (`--batch-hashing
// javascript`). With AGDX_BENCH_BASELINE_DIR=<another checkout of this repository, dependencies
// installed> the baseline is instead that checkout's server with its defaults, so earlier code is
// measured in the same run as ours. AGDX_BENCH_OURS_ENV=NAME=value[,NAME=value...] adds
// variables to our server's environment only (say GLIBC_TUNABLES=glibc.malloc.hugetlb=1, with
// AGDX_BENCH_BASELINE_DIR=. for the same code without it). Their ratio is taken per round, so
// load moves both alike.
// AGDX_BENCH_RUNS sets the number of measured rounds (default 7).
//
// Figures per run: messages acknowledged per wall-clock second, and messages per CPU second of the
// server process (its own `process.cpuUsage()`, user + system, asked over IPC: microseconds, where
// /proc counts 10 ms ticks and a run costs the server only some 100 ms), which is what the server
// itself costs even when other processes crowd the machine, with the kernel's share of that time
// (/proc/<pid>/stat, Linux only) and the server's minor page faults per request (the in-memory
// store keeps every batch, so each request needs fresh pages). The target is 1,000,000
// messages per second.
import { readFileSync } from 'node:fs';
import {
  CommandCode,
  encodeSendMessagesRequest,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { OutgoingMessage, VsrPendingRequest } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { startDevServer } from './support/dev-server.js';
import { connectVsrPipelined, type VsrPipelinedClient } from './support/vsr-pipelined-client.js';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCH = 1000;
const BATCHES_PER_RUN = 100;
const PIPELINE = 8;
const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
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

/**
 * CPU µs this machine spends on one fresh page: touches 32 MiB of new memory, one byte per 4 KiB
 * page, and divides this process's CPU time by its minor faults. The in-memory store keeps every
 * batch, so the server pays this for each page of every batch; on virtual machines it can be a
 * large part of the server's cost (see serverFaultShareEstimate).
 */
function freshPageCpuMicros(): number | undefined {
  const self = processUsage(process.pid);
  const cpu0 = process.cpuUsage();
  const pages = new Uint8Array(32 * 1024 * 1024);
  for (let i = 0; i < pages.length; i += 4096) pages[i] = 1;
  const cpu = process.cpuUsage(cpu0);
  const after = processUsage(process.pid);
  if (self === undefined || after === undefined || after.minorFaults <= self.minorFaults) return undefined;
  return (cpu.user + cpu.system) / (after.minorFaults - self.minorFaults);
}

await initChecksums();
const before = machine();
const pageCosts: number[] = [];
const firstPageCost = freshPageCpuMicros();
if (firstPageCost !== undefined) pageCosts.push(firstPageCost);

type Mode = 'wasm' | 'javascript' | 'checkout';
/** Another checkout whose server is the baseline (see the header), or undefined. */
const BASELINE_DIR = process.env.AGDX_BENCH_BASELINE_DIR || undefined;
/** Extra environment of our server only (see the header). */
const OURS_ENV: Record<string, string> | undefined = process.env.AGDX_BENCH_OURS_ENV
  ? Object.fromEntries(
      process.env.AGDX_BENCH_OURS_ENV.split(',').map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`AGDX_BENCH_OURS_ENV: expected NAME=value, got ${pair}`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    )
  : undefined;

/** One server under test: its process, a connected client, and the figures of its runs. */
interface Side {
  readonly mode: Mode;
  readonly server: Awaited<ReturnType<typeof startDevServer>>;
  readonly client: VsrPipelinedClient;
  readonly wall: number[];
  readonly perServerCpu: number[];
  readonly cpuMicrosPerMessage: number[];
  readonly systemShare: number[];
  readonly faultsPerBatch: number[];
}

async function side(mode: Mode): Promise<Side> {
  const server = mode === 'checkout' ? await startDevServer([], BASELINE_DIR) : await startDevServer(['--batch-hashing', mode], undefined, mode === 'wasm' ? OURS_ENV : undefined);
  const setup = await IggyTransport.connect({ port: server.port, protocol: 'vsr', heartbeatIntervalMs: 0 });
  await setup.ensureStream(STREAM);
  await setup.ensureTopic({ stream: STREAM, topic: TOPIC }, { partitions: 1 });
  await setup.close();
  const client = await connectVsrPipelined(server.port, PIPELINE);
  return { mode, server, client, wall: [], perServerCpu: [], cpuMicrosPerMessage: [], systemShare: [], faultsPerBatch: [] };
}

function prepareRun(client: Side['client'], run: number): VsrPendingRequest[] {
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

/** One run of BATCHES_PER_RUN requests against `s`; recorded unless it is the warm-up. */
async function measure(s: Side, run: number): Promise<void> {
  const frames = prepareRun(s.client, run);
  const use0 = processUsage(s.server.pid);
  const cpu0 = await s.server.cpuMicros();
  const start = performance.now();
  await s.client.sendAll(frames);
  const seconds = (performance.now() - start) / 1000;
  const cpu1 = await s.server.cpuMicros();
  const use1 = processUsage(s.server.pid);
  if (run === 0) return; // warm-up
  const messages = BATCHES_PER_RUN * BATCH;
  s.wall.push(messages / seconds);
  const cpu = (cpu1 - cpu0) / 1e6;
  if (cpu > 0) {
    s.perServerCpu.push(messages / cpu);
    s.cpuMicrosPerMessage.push((cpu * 1e6) / messages);
  }
  if (use0 === undefined || use1 === undefined) return;
  const ticks = use1.user + use1.system - (use0.user + use0.system);
  if (ticks > 0) s.systemShare.push((use1.system - use0.system) / ticks);
  s.faultsPerBatch.push((use1.minorFaults - use0.minorFaults) / BATCHES_PER_RUN);
}

const ours = await side('wasm');
const baseline = await side(BASELINE_DIR === undefined ? 'javascript' : 'checkout');
/** Per round: ours ÷ baseline of messages per server CPU second. */
const cpuRatio: number[] = [];
try {
  for (let run = 0; run <= RUNS; run++) {
    const order = run % 2 === 0 ? [ours, baseline] : [baseline, ours];
    for (const s of order) await measure(s, run);
    const o = ours.perServerCpu.at(-1);
    const b = baseline.perServerCpu.at(-1);
    if (run > 0 && o !== undefined && b !== undefined && ours.perServerCpu.length === run && baseline.perServerCpu.length === run) cpuRatio.push(o / b);
  }
} finally {
  for (const s of [ours, baseline]) {
    s.client.close();
    await s.server.stop();
  }
}

const lastPageCost = freshPageCpuMicros();
if (lastPageCost !== undefined) pageCosts.push(lastPageCost);
const pageCost = pageCosts.length === 0 ? undefined : median(pageCosts);

const spread = (values: readonly number[]) =>
  values.length === 0 ? undefined : { min: Math.round(Math.min(...values)), median: Math.round(median(values)), max: Math.round(Math.max(...values)) };
const ratioSpread = (values: readonly number[]) =>
  values.length === 0 ? undefined : { min: Number(Math.min(...values).toFixed(3)), median: Number(median(values).toFixed(3)), max: Number(Math.max(...values).toFixed(3)) };
const share = (values: readonly number[]) => ratioSpread(values);
const figures = (s: Side) => ({
  messagesPerWallSecond: spread(s.wall),
  messagesPerServerCpuSecond: spread(s.perServerCpu),
  serverCpuMicrosPerMessage: ratioSpread(s.cpuMicrosPerMessage),
  serverSystemCpuShare: share(s.systemShare),
  serverMinorFaultsPerBatch: spread(s.faultsPerBatch),
});
console.log(
  JSON.stringify(
    {
      name: 'iggy-dev-server-append',
      machineBefore: before,
      machineAfter: machine(),
      server: '@agdx/iggy-dev-server (agdx-iggy-dev command, in memory) in a child process, VSR; two servers, runs alternating',
      workload: `${RUNS} rounds (after one warm-up) of ${BATCHES_PER_RUN} SendMessages of ${BATCH} x ${RECORD_BYTES}-byte messages to one partition per server, ${PIPELINE} requests in flight, frames encoded before the clock starts`,
      results: {
        ours: { batchHashing: 'wasm', ...(OURS_ENV === undefined ? {} : { environment: OURS_ENV }), ...figures(ours) },
        baseline: BASELINE_DIR === undefined ? { batchHashing: 'javascript', ...figures(baseline) } : { checkout: BASELINE_DIR, ...figures(baseline) },
        ratioOursToBaselinePerServerCpu: ratioSpread(cpuRatio),
        freshPageCpuMicros: pageCost === undefined ? undefined : Number(pageCost.toFixed(2)),
        serverFaultShareEstimate:
          pageCost === undefined || ours.faultsPerBatch.length === 0 || ours.cpuMicrosPerMessage.length === 0
            ? undefined
            : Number(((median(ours.faultsPerBatch) * pageCost) / (median(ours.cpuMicrosPerMessage) * BATCH)).toFixed(3)),
        ratioToTarget: {
          target: 1_000_000,
          wall: Number((median(ours.wall) / 1_000_000).toFixed(3)),
          serverCpu: ours.perServerCpu.length > 0 ? Number((median(ours.perServerCpu) / 1_000_000).toFixed(3)) : undefined,
        },
      },
      notes: 'messagesPerServerCpuSecond divides the messages of a run by the CPU seconds (user + system, the server process\'s own process.cpuUsage() over IPC, microseconds) the server process used during it; serverCpuMicrosPerMessage is the inverse; ratioOursToBaselinePerServerCpu divides ours by the baseline of the same round; serverSystemCpuShare is the kernel part of the server CPU time and serverMinorFaultsPerBatch the minor page faults per 1,000-message request (a batch is about 150 KB, 37 pages of 4 KiB, kept by the in-memory store); ratioToTarget divides our median by 1,000,000 messages per second; freshPageCpuMicros is the CPU time (process.cpuUsage of the benchmark process) of touching 32 MiB of new memory divided by the minor faults it took, median of a measurement before and after the rounds; serverFaultShareEstimate multiplies our median faults per batch by it and divides by our median server CPU µs per batch, an estimate of the part of the server CPU spent faulting in the pages the in-memory store keeps',
    },
    null,
    2,
  ),
);
