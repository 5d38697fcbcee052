// Agent round trips on MemoryLog: a requester sends an AGDX command through the client
// (`laser.request`) to an echo agent built with Agent.builder(), which answers with
// ctx.respond; the round trip ends when the correlated wait resolves. Measured with 1 and 64
// requests in flight: p50/p99 latency and round trips per second. Baseline, same run: the same
// exchange with raw transport records (append the request, a follow() loop appends the answer,
// the requester waits with waitFor), i.e. the floor two appends and two wake-ups cost on
// MemoryLog without any AGDX encoding, dispatch or correlation; the in-memory rows are also taken
// with the agent's answers not pipelined (`pipelining(false)`). Over the dev server (another
// process) the baseline is the same exchange with the agent's answers not pipelined (every append
// awaited before the next record, the runtime before issue 17 item 4), alternating rounds with
// ours; idle CPU is measured for both. The in-memory rows also count the appends, reads and
// waits a round trip costs the log (an untimed run on a counting wrapper). Prints one JSON object.
import { readFileSync } from 'node:fs';
import { AgdxClient, Agent, AgentTopic, readAgentMessage } from '@agdx/agents';
import { startDevServer } from './support/dev-server.js';
import { follow, MemoryLog, type AppendRecord, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { echoRoundTrip, ECHO_BODY } from './support/echo-round-trip.js';
import { machine } from './support/machine.js';
import { median, percentile } from './support/stats.js';

const STREAM = 'bench';
const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 3);
// AGDX_BENCH_ONLY=devServer skips the in-memory rows and the dispatch path (the dev-server rows
// alone take a few minutes on a loaded machine); AGDX_BENCH_ONLY=memory skips the dev-server rows
// (issue 17 item 5 alone); anything else runs everything.
const DEV_SERVER_ONLY = process.env.AGDX_BENCH_ONLY === 'devServer';
const MEMORY_ONLY = process.env.AGDX_BENCH_ONLY === 'memory';
const SERIAL_ROUND_TRIPS = 2_000;
const CONCURRENT_ROUND_TRIPS = 20_000;
const IN_FLIGHT = 64;
const BODY = ECHO_BODY;
// Over the dev server every leg is a TCP exchange and Iggy has no blocking poll, so fewer round
// trips are timed; the baseline's waitFor pause starts at 1 ms.
const DEV_SERIAL_ROUND_TRIPS = 300;
const DEV_CONCURRENT_ROUND_TRIPS = 3_000;
const DEV_OPTIONS = { protocol: 'vsr', heartbeatIntervalMs: 0, waitPollMs: { min: 1, max: 5 }, connections: 4 } as const;

interface Figures {
  readonly p50Micros: number;
  readonly p99Micros: number;
  readonly roundTripsPerSec: number;
  /** Process CPU time (user + system) per round trip: independent of other load on the machine. */
  readonly cpuMicrosPerRoundTrip: number;
  /** Over the measured runs (summaries only): [min, max] of each figure the median is taken of. */
  readonly range?: Record<'p50Micros' | 'roundTripsPerSec' | 'cpuMicrosPerRoundTrip', readonly [number, number]>;
}

async function drive(count: number, inFlight: number, once: () => Promise<void>): Promise<Figures> {
  const latencies: number[] = new Array(count);
  let next = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (;;) {
        const i = next++;
        if (i >= count) return;
        const t0 = performance.now();
        await once();
        latencies[i] = (performance.now() - t0) * 1000;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    p50Micros: percentile(latencies, 50),
    p99Micros: percentile(latencies, 99),
    roundTripsPerSec: count / seconds,
    cpuMicrosPerRoundTrip: (used.user + used.system) / count,
  };
}

type Setup = () => Promise<{ once: () => Promise<void>; stop: () => Promise<void> }>;

function agdxSetup(pipelined: boolean): Setup {
  return async () => {
    const log = new MemoryLog();
    return agdxOn(log, log, async () => undefined, pipelined);
  };
}

/** The requester works through `requester`, the echo agent through `responder` (two connections to one log). */
async function agdxOn(requester: LogTransport, responder: LogTransport, close: () => Promise<void>, pipelined: boolean): Promise<{ once: () => Promise<void>; stop: () => Promise<void> }> {
  const laser = AgdxClient.from(requester, { stream: STREAM });
  await laser.bootstrap(1);
  const agentClient = responder === requester ? laser : AgdxClient.from(responder, { stream: STREAM });
  const { once, stopAgent } = await echoRoundTrip(laser, agentClient, pipelined);
  return {
    once,
    stop: async () => {
      await stopAgent();
      await laser.close();
      if (agentClient !== laser) await agentClient.close();
      await close();
    },
  };
}

/** Transport calls per topic, counted on a MemoryLog connection. */
type OperationCounts = Record<string, { appends: number; appendedRecords: number; reads: number; readRecords: number; waits: number }>;

/**
 * A MemoryLog whose appends, reads and waits are counted per topic (not timed: the counting
 * wrapper is not free). Says how much work a round trip costs the log, which load cannot move.
 */
function countingLog(): { log: LogTransport; counts: OperationCounts } {
  const target = new MemoryLog();
  const counts: OperationCounts = {};
  const of = (topic: string) => (counts[topic] ??= { appends: 0, appendedRecords: 0, reads: 0, readRecords: 0, waits: 0 });
  const log = new Proxy(target, {
    get(t, prop) {
      if (prop === 'append') {
        return (request: Parameters<LogTransport['append']>[0]) => {
          const c = of(request.topic);
          c.appends++;
          c.appendedRecords += request.records.length;
          return t.append(request);
        };
      }
      if (prop === 'read') {
        return async (request: Parameters<LogTransport['read']>[0]) => {
          const c = of(request.topic);
          c.reads++;
          const records = await t.read(request);
          c.readRecords += records.length;
          return records;
        };
      }
      if (prop === 'waitFor') {
        return (request: Parameters<LogTransport['waitFor']>[0]) => {
          of(request.topic).waits++;
          return t.waitFor(request);
        };
      }
      const value = Reflect.get(t, prop, t) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  }) as LogTransport;
  return { log, counts };
}

/** Appends, reads and waits per round trip on the request and answer topics, after a warm-up of 1,000 round trips. */
async function operationsPerRoundTrip(count: number, inFlight: number): Promise<Record<string, Record<string, number>>> {
  const { log, counts } = countingLog();
  const { once, stop } = await agdxOn(log, log, async () => undefined, true);
  await drive(1_000, inFlight, once);
  for (const key of Object.keys(counts)) delete counts[key];
  await drive(count, inFlight, once);
  await stop();
  const per: Record<string, Record<string, number>> = {};
  for (const [topic, c] of Object.entries(counts)) {
    if (topic !== 'agent.commands' && topic !== 'agent.responses') continue;
    per[topic] = Object.fromEntries(Object.entries(c).map(([k, v]) => [k, Number((v / count).toFixed(3))]));
  }
  return per;
}

/** The same exchange over the Iggy dev server in another process, requester and agent on their own connections. */
function devServerSetup(port: number, pipelined: boolean): Setup {
  return async () => {
    const requester = await IggyTransport.connect({ port, ...DEV_OPTIONS });
    const responder = await IggyTransport.connect({ port, ...DEV_OPTIONS });
    return agdxOn(
      requester,
      responder,
      async () => {
        await requester.close();
        await responder.close();
      },
      pipelined,
    );
  };
}

async function rawSetup(): Promise<{ once: () => Promise<void>; stop: () => Promise<void> }> {
  const log = new MemoryLog();
  await log.ensureStream(STREAM);
  await log.ensureTopic({ stream: STREAM, topic: 'req' }, { partitions: 1 });
  await log.ensureTopic({ stream: STREAM, topic: 'res' }, { partitions: 1 });
  const stop = new AbortController();
  const echo = (async () => {
    try {
      for await (const record of follow(log, { stream: STREAM, topic: 'req', partition: 0, signal: stop.signal })) {
        await log.append({ stream: STREAM, topic: 'res', routing: { partition: 0 }, records: [{ payload: record.payload }] });
      }
    } catch {
      // stopped
    }
  })();
  // One reader of the answer topic dispatching to waiters by request number, as a reply hub does.
  const waiters = new Map<number, () => void>();
  let seq = 0;
  const reader = (async () => {
    try {
      for await (const record of follow(log, { stream: STREAM, topic: 'res', partition: 0, signal: stop.signal })) {
        const id = new DataView(record.payload.buffer, record.payload.byteOffset).getUint32(0);
        waiters.get(id)?.();
        waiters.delete(id);
      }
    } catch {
      // stopped
    }
  })();
  const once = async (): Promise<void> => {
    const id = seq++;
    const payload = new Uint8Array(4 + BODY.length);
    new DataView(payload.buffer).setUint32(0, id);
    payload.set(BODY, 4);
    const done = new Promise<void>((resolve) => waiters.set(id, resolve));
    await log.append({ stream: STREAM, topic: 'req', routing: { partition: 0 }, records: [{ payload }] });
    await done;
  };
  return {
    once,
    stop: async () => {
      stop.abort();
      await Promise.allSettled([echo, reader]);
      await log.close();
    },
  };
}

/**
 * Several setups measured in rounds, one run of each per round (so all see the same load); round 0
 * warms up. The order flips every round: the setup that runs first in a round was measured slower
 * over the dev server whichever it was, so a fixed order would favour the others.
 */
async function measureRounds<T extends readonly Setup[]>(setups: T, count: number, inFlight: number): Promise<{ -readonly [K in keyof T]: Figures }> {
  const runs: Figures[][] = setups.map(() => []);
  for (let run = 0; run <= RUNS; run++) {
    const order = [...setups.keys()];
    if (run % 2 === 1) order.reverse();
    for (const i of order) {
      const figures = await measureOnce(setups[i] as Setup, count, inFlight);
      if (run > 0) runs[i]?.push(figures);
    }
  }
  return runs.map(summarize) as { -readonly [K in keyof T]: Figures };
}

async function measureOnce(setup: Setup, count: number, inFlight: number): Promise<Figures> {
  const { once, stop } = await setup();
  const figures = await drive(count, inFlight, once);
  await stop();
  return figures;
}

/** p50 and CPU as ours ÷ baseline; throughput divided as `throughput` says (see the notes). */
function ratios(ours: Figures, baseline: Figures, throughput: 'baseline/ours' | 'ours/baseline'): { p50: number; throughput: number; cpu: number } {
  const rate = throughput === 'ours/baseline' ? ours.roundTripsPerSec / baseline.roundTripsPerSec : baseline.roundTripsPerSec / ours.roundTripsPerSec;
  return {
    p50: Number((ours.p50Micros / baseline.p50Micros).toFixed(2)),
    throughput: Number(rate.toFixed(2)),
    cpu: Number((ours.cpuMicrosPerRoundTrip / baseline.cpuMicrosPerRoundTrip).toFixed(2)),
  };
}

function summarize(runs: readonly Figures[]): Figures {
  const range = (pick: (f: Figures) => number): readonly [number, number] => {
    const values = runs.map(pick);
    return [Number(Math.min(...values).toFixed(1)), Number(Math.max(...values).toFixed(1))];
  };
  return {
    p50Micros: Number(median(runs.map((r) => r.p50Micros)).toFixed(1)),
    p99Micros: Number(median(runs.map((r) => r.p99Micros)).toFixed(1)),
    roundTripsPerSec: Math.round(median(runs.map((r) => r.roundTripsPerSec))),
    cpuMicrosPerRoundTrip: Number(median(runs.map((r) => r.cpuMicrosPerRoundTrip)).toFixed(1)),
    range: { p50Micros: range((r) => r.p50Micros), roundTripsPerSec: range((r) => r.roundTripsPerSec), cpuMicrosPerRoundTrip: range((r) => r.cpuMicrosPerRoundTrip) },
  };
}

// The dispatch path alone: records already on the log, a no-op handler; the baseline reads and
// decodes the same records with readAgentMessage (what any consumer must do), so the ratio is
// the runtime's own overhead (group, lanes, classification, dedup check, context, commits).
const DISPATCH_RECORDS = 20_000;

function commandRecords(): AppendRecord[][] {
  const conversation = ConversationId.new();
  const batches: AppendRecord[][] = [];
  for (let b = 0; b < DISPATCH_RECORDS / 1_000; b++) {
    const batch: AppendRecord[] = [];
    for (let i = 0; i < 1_000; i++) {
      const envelope = AgentEnvelope.command(MintUlid.mint(RecordId), conversation, AgentId.new('planner'), MintUlid.mint(CorrelationId), BODY).withTarget(AgentId.new('echo'));
      const record = envelopeRecord(envelope, ContentType.raw, { topic: AgentTopic.Commands });
      batch.push({ headers: record.headers, payload: record.payload });
    }
    batches.push(batch);
  }
  return batches;
}

async function filledLog(batches: AppendRecord[][]): Promise<{ log: MemoryLog; laser: AgdxClient }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM });
  await laser.bootstrap(1);
  for (const records of batches) await log.append({ stream: STREAM, topic: AgentTopic.Commands, routing: { partition: 0 }, records });
  return { log, laser };
}

async function dispatchRun(batches: AppendRecord[][]): Promise<{ perSec: number; cpuMicros: number }> {
  const { laser } = await filledLog(batches);
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const cpu = process.cpuUsage();
  const start = performance.now();
  const agent = Agent.builder()
    .id('echo')
    .listenOn(AgentTopic.Commands)
    .followControl(false)
    .heartbeats(false)
    .handler(() => {
      if (++seen === DISPATCH_RECORDS) done();
    })
    .spawn(laser);
  await all;
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.shutdown();
  return { perSec: DISPATCH_RECORDS / seconds, cpuMicros: (used.user + used.system) / DISPATCH_RECORDS };
}

async function decodeRun(batches: AppendRecord[][]): Promise<{ perSec: number; cpuMicros: number }> {
  const { log } = await filledLog(batches);
  const cpu = process.cpuUsage();
  const start = performance.now();
  let offset = 0n;
  let count = 0;
  for (;;) {
    const records = await log.read({ stream: STREAM, topic: AgentTopic.Commands, partition: 0, offset, maxCount: 256 });
    if (records.length === 0) break;
    for (const record of records) {
      if (readAgentMessage(record, { stream: STREAM, topic: AgentTopic.Commands }).envelope !== undefined) count++;
      offset = record.offset + 1n;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  if (count !== DISPATCH_RECORDS) throw new Error('baseline lost records');
  return { perSec: DISPATCH_RECORDS / seconds, cpuMicros: (used.user + used.system) / DISPATCH_RECORDS };
}

const loadAverageAtStart = machine().loadAverage;
const batches = DEV_SERVER_ONLY ? [] : commandRecords();
const dispatch: { perSec: number; cpuMicros: number }[] = [];
const decodeOnly: { perSec: number; cpuMicros: number }[] = [];
for (let run = 0; run <= (DEV_SERVER_ONLY ? -1 : RUNS); run++) {
  const ours = await dispatchRun(batches);
  const base = await decodeRun(batches);
  if (run > 0) {
    dispatch.push(ours);
    decodeOnly.push(base);
  }
}
const dispatchFigures = {
  agent: { recordsPerSec: Math.round(median(dispatch.map((d) => d.perSec))), cpuMicrosPerRecord: Number(median(dispatch.map((d) => d.cpuMicros)).toFixed(2)) },
  baselineReadAndDecode: { recordsPerSec: Math.round(median(decodeOnly.map((d) => d.perSec))), cpuMicrosPerRecord: Number(median(decodeOnly.map((d) => d.cpuMicros)).toFixed(2)) },
};

const results: Record<string, unknown> = {};
if (!DEV_SERVER_ONLY) results.dispatchOnly = {
    ...dispatchFigures,
    runtimeOverheadCpuMicrosPerRecord: Number((dispatchFigures.agent.cpuMicrosPerRecord - dispatchFigures.baselineReadAndDecode.cpuMicrosPerRecord).toFixed(2)),
    ratio: { cpu: Number((dispatchFigures.agent.cpuMicrosPerRecord / dispatchFigures.baselineReadAndDecode.cpuMicrosPerRecord).toFixed(2)) },
};
for (const [label, count, inFlight] of DEV_SERVER_ONLY ? [] : ([
  ['inFlight1', SERIAL_ROUND_TRIPS, 1],
  [`inFlight${IN_FLIGHT}`, CONCURRENT_ROUND_TRIPS, IN_FLIGHT],
] as const)) {
  const [ours, baseline, notPipelined] = await measureRounds([agdxSetup(true), rawSetup, agdxSetup(false)] as const, count, inFlight);
  results[label] = {
    agent: ours,
    baselineRawTransport: baseline,
    ratio: ratios(ours, baseline, 'baseline/ours'),
    agentNotPipelined: notPipelined,
    ratioToNotPipelined: ratios(ours, notPipelined, 'ours/baseline'),
    operationsPerRoundTrip: await operationsPerRoundTrip(count, inFlight),
  };
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); undefined elsewhere. */
function processCpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const IDLE_MS = 10_000;

/** A requester and an agent after one round trip, then IDLE_MS with no traffic: CPU per wall second, in % of one core. */
async function idleCpu(setup: Setup, serverPid: number): Promise<{ clientAndAgentPercentOfCore: number; serverPercentOfCore: number | undefined }> {
  const { once, stop } = await setup();
  await once();
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // readers leave their hot window, the hub's stop
  const cpu = process.cpuUsage();
  const server0 = processCpuSeconds(serverPid);
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const server1 = processCpuSeconds(serverPid);
  await stop();
  return {
    clientAndAgentPercentOfCore: Number((((used.user + used.system) / 1000 / wallMs) * 100).toFixed(2)),
    serverPercentOfCore: server0 === undefined || server1 === undefined ? undefined : Number(((((server1 - server0) * 1000) / wallMs) * 100).toFixed(2)),
  };
}

// Over the dev server: the same round trips with the server in a child process (in memory).
const server = MEMORY_ONLY ? undefined : await startDevServer();
if (server !== undefined) try {
  const overDevServer: Record<string, unknown> = {};
  for (const [label, count, inFlight] of [
    ['inFlight1', DEV_SERIAL_ROUND_TRIPS, 1],
    [`inFlight${IN_FLIGHT}`, DEV_CONCURRENT_ROUND_TRIPS, IN_FLIGHT],
  ] as const) {
    const [ours, baseline] = await measureRounds([devServerSetup(server.port, true), devServerSetup(server.port, false)] as const, count, inFlight);
    overDevServer[label] = {
      agent: ours,
      baselineNotPipelined: baseline,
      ratio: ratios(ours, baseline, 'ours/baseline'),
    };
  }
  overDevServer.idle = {
    agent: await idleCpu(devServerSetup(server.port, true), server.pid),
    baselineNotPipelined: await idleCpu(devServerSetup(server.port, false), server.pid),
    idleMs: IDLE_MS,
  };
  results.devServer = { ...overDevServer, transport: DEV_OPTIONS };
} finally {
  await server.stop();
}

process.stdout.write(
  `${JSON.stringify(
    {
      name: 'agents-roundtrip',
      environment: { ...machine(), loadAverageAtStart },
      config: { runs: RUNS, only: DEV_SERVER_ONLY ? 'devServer' : MEMORY_ONLY ? 'memory' : 'all', serialRoundTrips: SERIAL_ROUND_TRIPS, concurrentRoundTrips: CONCURRENT_ROUND_TRIPS, devServerSerialRoundTrips: DEV_SERIAL_ROUND_TRIPS, devServerConcurrentRoundTrips: DEV_CONCURRENT_ROUND_TRIPS, inFlight: IN_FLIGHT, dispatchRecords: DISPATCH_RECORDS, bodyBytes: BODY.length },
      targets: {
        inMemory: { inFlight1P50MicrosAtMost: 20, inFlight64RoundTripsPerSecAtLeast: 50_000 },
        devServer: { inFlight1P50MicrosAtMost: 1_000, inFlight64RoundTripsPerSecAtLeast: 10_000, idlePercentOfCoreBelow: 2 },
      },
      results,
      notes:
        'agent = laser.request(command) → Agent (serial consumer, dispatch, dedup check, ctx.respond) → reply hub; baselineRawTransport = two raw appends and follow() wake-ups on the same MemoryLog. ratio.p50 = our p50 / baseline p50, ratio.throughput = baseline rate / our rate, ratio.cpu = our CPU per round trip / baseline CPU per round trip (lower is better, 1 = no AGDX overhead). Wall-clock figures suffer from other load on the machine (see environment.loadAverage); cpuMicrosPerRoundTrip does not. Medians over runs after one warm-up round, range = [min, max] over the same runs; the setups of a row run once per round, in an order that flips every round (in memory: agent, raw transport, agent not pipelined). agentNotPipelined = the same agent with pipelining(false) (every answer awaited before the next record); ratioToNotPipelined.throughput = our rate / its rate, p50 and cpu ours / its. operationsPerRoundTrip: one extra, untimed run of the pipelined agent on a MemoryLog wrapped to count, per topic, appends (and records appended), reads (and records read) and waitFor calls, each divided by the round trips of that run. devServer = the same agent exchange over @agdx/transport-iggy to the Iggy dev server (in memory) in a child process, requester and agent on separate connections, paced readers on both sides; agent = pipelined answers (the default), baselineNotPipelined = the same code with pipelining(false); rounds alternate. There ratio.p50 = our p50 / baseline p50, ratio.throughput = our rate / baseline rate, ratio.cpu = our client-process CPU per round trip / baseline\'s (the server process is not counted). devServer.idle: after one round trip and 1 s, the CPU of the requester+agent process and of the server process over idleMs of no traffic, in % of one core (heartbeats off, control topic not followed). Targets: issue 17 items 4 and 5; benchmarks never fail on them.',
    },
    null,
    2,
  )}\n`,
);
