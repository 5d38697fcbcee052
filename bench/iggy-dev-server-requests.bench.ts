// The dev server alone, in memory: server CPU per request for the small requests an agent's
// traffic is made of (the reliability load's mix), one kind at a time:
// - `poll-empty`: PollMessages by offset at the end of a partition (nothing new: an idle reader's
//   poll, the most frequent request of a waiting client);
// - `poll-one`: PollMessages by offset returning one 300-byte message;
// - `store-offset`: StoreConsumerOffset of a consumer;
// - `send-one`: SendMessages of one 300-byte message (kept by the store).
// The server (the agdx-iggy-dev command, in memory) runs in a child process and reports its own
// CPU time (`process.cpuUsage()` over IPC); the client is a VSR session on a plain socket with
// every frame encoded before the clock starts and PIPELINE requests in flight, so the figure is
// what the server spends, whatever else crowds the machine.
//
// Two servers run side by side and the rounds alternate between them (which goes first flips
// every round): ours, and the baseline, by default the same code (an A/A check of the noise);
// with AGDX_BENCH_BASELINE_DIR=<another checkout of this repository, dependencies installed> the
// baseline is that checkout's server, so earlier code is measured in the same run. The ratio is
// taken per round (baseline µs ÷ ours: above 1 means ours is cheaper). AGDX_BENCH_RUNS sets the
// rounds (default 9). Prints one JSON object.
import {
  CommandCode,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { VsrPendingRequest } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { startDevServer } from './support/dev-server.js';
import { connectVsrPipelined, type VsrPipelinedClient } from './support/vsr-pipelined-client.js';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const REQUESTS = 2_000;
const PIPELINE = 4;
const PAYLOAD_BYTES = 300;
const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 9);
const STREAM = 'bench';
const TOPIC = 'requests';
/** Messages in partition 0 before the rounds: what `poll-one` reads and `poll-empty` polls past. */
const PRELOADED = 1_000;
const KINDS = ['poll-empty', 'poll-one', 'store-offset', 'send-one'] as const;
type Kind = (typeof KINDS)[number];
const BASELINE_DIR = process.env.AGDX_BENCH_BASELINE_DIR || undefined;

/** One server under test: its process, a connected client, and the CPU µs per request of each kind per round. */
interface Side {
  readonly name: 'ours' | 'baseline';
  readonly server: Awaited<ReturnType<typeof startDevServer>>;
  readonly client: VsrPipelinedClient;
  readonly micros: Record<Kind, number[]>;
}

function payload(i: number): Uint8Array {
  const p = new Uint8Array(PAYLOAD_BYTES);
  p[0] = i & 0xff;
  p[1] = (i >> 8) & 0xff;
  return p;
}

async function side(name: Side['name']): Promise<Side> {
  const server = name === 'baseline' && BASELINE_DIR !== undefined ? await startDevServer([], BASELINE_DIR) : await startDevServer();
  const setup = await IggyTransport.connect({ port: server.port, protocol: 'vsr', heartbeatIntervalMs: 0 });
  await setup.ensureStream(STREAM);
  await setup.ensureTopic({ stream: STREAM, topic: TOPIC }, { partitions: 2 });
  await setup.close();
  const client = await connectVsrPipelined(server.port, PIPELINE);
  const preload = Array.from({ length: PRELOADED / 100 }, (_, b) =>
    client.session.command(
      CommandCode.SendMessages,
      encodeSendMessagesRequest({ stream: STREAM, topic: TOPIC, partitioning: partitioning.partitionId(0), messages: Array.from({ length: 100 }, (_, i) => ({ payload: payload(b * 100 + i) })) }, 'vsr'),
    ),
  );
  await client.sendAll(preload);
  return { name, server, client, micros: { 'poll-empty': [], 'poll-one': [], 'store-offset': [], 'send-one': [] } };
}

/** The frames of one run of `kind`; inputs vary per request (offsets, payloads). */
function prepare(s: Side, kind: Kind, run: number): VsrPendingRequest[] {
  const consumer = { kind: 'consumer', id: 1 } as const;
  return Array.from({ length: REQUESTS }, (_, i) => {
    switch (kind) {
      case 'poll-empty':
        // Partition 1 stays empty: every poll finds nothing, at a varying offset.
        return s.client.session.command(CommandCode.PollMessages, encodePollMessagesRequest({ consumer, stream: STREAM, topic: TOPIC, partitionId: 1, strategy: { kind: 'offset', value: BigInt(i % 7) }, count: 100, autoCommit: false }));
      case 'poll-one':
        return s.client.session.command(CommandCode.PollMessages, encodePollMessagesRequest({ consumer, stream: STREAM, topic: TOPIC, partitionId: 0, strategy: { kind: 'offset', value: BigInt((i * 37 + run) % PRELOADED) }, count: 1, autoCommit: false }));
      case 'store-offset':
        return s.client.session.command(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: { kind: 'consumer', id: 1 + (i % 16) }, stream: STREAM, topic: TOPIC, partitionId: 0, offset: BigInt((i * 13 + run) % PRELOADED) }, 'vsr'));
      case 'send-one':
        // Partition 1 is never written: `poll-empty` stays empty, so sends go to partition 0 past the preloaded messages.
        return s.client.session.command(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: STREAM, topic: TOPIC, partitioning: partitioning.partitionId(0), messages: [{ payload: payload(run * REQUESTS + i) }] }, 'vsr'));
    }
  });
}

async function measure(s: Side, kind: Kind, run: number): Promise<void> {
  const frames = prepare(s, kind, run);
  const cpu0 = await s.server.cpuMicros();
  await s.client.sendAll(frames);
  const cpu1 = await s.server.cpuMicros();
  if (run > 0) s.micros[kind].push((cpu1 - cpu0) / REQUESTS);
}

await initChecksums();
const before = machine();
const ours = await side('ours');
const baseline = await side('baseline');
const ratios: Record<Kind, number[]> = { 'poll-empty': [], 'poll-one': [], 'store-offset': [], 'send-one': [] };
try {
  for (let run = 0; run <= RUNS; run++) {
    for (const kind of KINDS) {
      const order = (run + KINDS.indexOf(kind)) % 2 === 0 ? [ours, baseline] : [baseline, ours];
      for (const s of order) await measure(s, kind, run);
      const o = ours.micros[kind].at(-1);
      const b = baseline.micros[kind].at(-1);
      if (run > 0 && o !== undefined && b !== undefined && o > 0) ratios[kind].push(b / o);
    }
  }
} finally {
  for (const s of [ours, baseline]) {
    s.client.close();
    await s.server.stop();
  }
}

const spread = (values: readonly number[], digits: number) =>
  values.length === 0 ? undefined : { min: Number(Math.min(...values).toFixed(digits)), median: Number(median(values).toFixed(digits)), max: Number(Math.max(...values).toFixed(digits)) };
const figures = (s: Side) => Object.fromEntries(KINDS.map((k) => [k, spread(s.micros[k], 2)]));
console.log(
  JSON.stringify(
    {
      name: 'iggy-dev-server-requests',
      machineBefore: before,
      machineAfter: machine(),
      server: '@agdx/iggy-dev-server (agdx-iggy-dev command, in memory) in a child process, VSR; two servers, rounds alternating',
      workload: `${RUNS} rounds (after one warm-up) of ${REQUESTS} requests of each kind per server, ${PIPELINE} in flight on one connection, frames encoded before the clock starts; ${PRELOADED} messages of ${PAYLOAD_BYTES} B preloaded in partition 0`,
      results: {
        oursServerCpuMicrosPerRequest: figures(ours),
        baselineServerCpuMicrosPerRequest: { ...(BASELINE_DIR === undefined ? { same: 'this checkout (A/A)' } : { checkout: BASELINE_DIR }), ...figures(baseline) },
        ratioBaselineToOurs: Object.fromEntries(KINDS.map((k) => [k, spread(ratios[k], 3)])),
      },
      notes: 'µs of server CPU (user + system of the server process, its own process.cpuUsage() over IPC) per request: the CPU used during a run of REQUESTS requests divided by REQUESTS; ratioBaselineToOurs divides the baseline by ours in the same round (above 1: ours costs less)',
    },
    null,
    2,
  ),
);
