// @agdx/sessions reads that keep their fold (issue 16), on a lane of RECORDS records over SESSIONS
// sessions (100 per session, interleaved over 4 partitions), on the embedded MemoryLog and on the
// dev server with data on disk (over loopback TCP, another process):
//  1. a repeated `sessions.get(id)` in the same process, against reading and decoding that
//     session's own records by their offsets (target: at most 2x);
//  2. a new reader that starts from a fold snapshot, against a full fold of the log, in
//     alternating rounds (target: at most 5%);
//  3. a change-feed poll with nothing new (what every `watch` poll does) at 10k, 100k and 1M
//     records: CPU time per poll of this process and of the dev server, and the requests, records
//     and wire bytes of one poll (target: the same cost at every size).
// Baselines are measured in the same run. Run: pnpm bench session-reads → one JSON object on stdout.
// Knobs: AGDX_BENCH_READS_RECORDS (default 1,000,000; 0 skips MemoryLog), AGDX_BENCH_READS_DISK_RECORDS
// (default 100,000; 0 skips the dev server), AGDX_BENCH_READS_PARTS (`polls,fold`; `polls` alone
// skips the full folds), AGDX_BENCH_READS_ROUNDS (or AGDX_BENCH_RUNS; default 3),
// AGDX_BENCH_READS_POLL_ROUNDS (30) and AGDX_BENCH_READS_POLLS_PER_ROUND (50),
// AGDX_BENCH_READS_PROFILE=<dir> (a CPU profile of each snapshot start). The dev server at
// 1,000,000 records is opt-in: loading 1M records over TCP takes minutes on the shared 2-core
// machine, and each full fold reads every record over TCP again. CI runs no benchmark.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgdxClient, readAgentMessage, SESSIONS_TOPIC } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog, partitionForKey, type AppendRecord, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { byteCountingProxy, type ByteCountingProxy } from './support/byte-counting-proxy.js';
import { countingTransport } from './support/counting-transport.js';
import { startDevServer, type DevServer } from './support/dev-server.js';
import { machine } from './support/machine.js';
import { spread } from './support/stats.js';

const RECORDS = Number(process.env.AGDX_BENCH_READS_RECORDS ?? 1_000_000);
const DISK_RECORDS = Number(process.env.AGDX_BENCH_READS_DISK_RECORDS ?? 100_000);
const PER_SESSION = 100;
const PARTITIONS = 4;
/** Alternating full-fold / snapshot-start rounds. */
const ROUNDS = Number(process.env.AGDX_BENCH_READS_ROUNDS ?? process.env.AGDX_BENCH_RUNS ?? 3);
/** Rounds of empty polls at each size, and polls per round (each round's figures are divided by its polls). */
const POLL_ROUNDS = Number(process.env.AGDX_BENCH_READS_POLL_ROUNDS ?? 30);
const POLLS_PER_ROUND = Number(process.env.AGDX_BENCH_READS_POLLS_PER_ROUND ?? 50);
/** Polls of the counting pass (requests, records and wire bytes per poll). */
const COUNTED_POLLS = 100;
const GETS = 200;
/** Which parts run: `polls` (empty polls at each size), `fold` (full fold, snapshot start, repeated gets). */
const PARTS = new Set((process.env.AGDX_BENCH_READS_PARTS ?? 'polls,fold').split(',').map((p) => p.trim()));
const planner = AgentId.parse('planner');
const model = AgentId.parse('model');
const body = new TextEncoder().encode('{"prompt":"summarise the ticket in two lines"}');

interface Built {
  readonly laser: AgdxClient;
  /** Where the target session's records are. */
  readonly targetPositions: { partition: number; offset: bigint }[];
  readonly target: ConversationId;
}

/** Two envelope records of one session (a model request and its answer), reused for all its records. */
function templates(conversation: ConversationId): AppendRecord[] {
  const correlation = MintUlid.mint(CorrelationId);
  const request = AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source: planner, target: model, correlation, operation: 'chat', body });
  const answer = AgentEnvelope.fromFields({ kind: 'response', record: MintUlid.mint(RecordId), conversation, source: model, target: planner, correlation, operation: 'chat', body });
  return [request, answer].map((e) => {
    const r = envelopeRecord(e, ContentType.json, { topic: SESSIONS_TOPIC });
    return { headers: r.headers, payload: r.payload };
  });
}

/** Appends records round by round (every session one record per round) until `stream`'s lane holds `upTo` records. */
async function fill(transport: LogTransport, stream: string, upTo: number): Promise<Built> {
  const laser = AgdxClient.from(transport, { stream });
  await laser.bootstrap(PARTITIONS);
  const sessionCount = Math.max(1, Math.floor(upTo / PER_SESSION));
  const byPartition: { records: AppendRecord[] }[][] = Array.from({ length: PARTITIONS }, () => []);
  const ids: ConversationId[] = [];
  for (let i = 0; i < sessionCount; i++) {
    const id = ConversationId.derive(`bench-reads-${i}`);
    ids.push(id);
    byPartition[await partitionForKey(id.toString(), PARTITIONS)]?.push({ records: templates(id) });
  }
  const target = ids[0] as ConversationId;
  const targetPartition = await partitionForKey(target.toString(), PARTITIONS);
  const targetPositions: { partition: number; offset: bigint }[] = [];
  let written = 0;
  for (let round = 0; round < PER_SESSION && written < upTo; round++) {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const sessionsHere = byPartition[partition] as { records: AppendRecord[] }[];
      for (let from = 0; from < sessionsHere.length && written < upTo; from += 1000) {
        const chunk = sessionsHere
          .slice(from, from + 1000)
          .map((s) => s.records[round % 2] as AppendRecord)
          .slice(0, upTo - written);
        const result = await transport.append({ stream, topic: SESSIONS_TOPIC, records: chunk, routing: { partition }, payloadsImmutable: true });
        // the target is the first session of its partition: the first record of each round's first batch
        if (partition === targetPartition && from === 0 && targetPositions.length === round) targetPositions.push({ partition, offset: result.baseOffset });
        written += chunk.length;
      }
    }
  }
  return { laser, targetPositions, target };
}

/** Reads and decodes the target's own records by offset: the floor a read of one session pays. */
async function ownRecords(transport: LogTransport, positions: readonly { partition: number; offset: bigint }[]): Promise<number> {
  let n = 0;
  for (const p of positions) {
    const [record] = await transport.read({ stream: 'bench', topic: SESSIONS_TOPIC, partition: p.partition, offset: p.offset, maxCount: 1 });
    if (record !== undefined && readAgentMessage(record, { stream: 'bench', topic: SESSIONS_TOPIC }) !== undefined) n++;
  }
  return n;
}

async function timeMs(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

/** Wall-clock, this process's CPU time and the server's own CPU time of one run of `work`, in ms. */
async function phase(server: DevServer | undefined, work: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number; serverCpuMs?: number }> {
  const server0 = await server?.cpuMicros();
  const cpu = process.cpuUsage();
  const wallMs = await timeMs(work);
  const used = process.cpuUsage(cpu);
  const server1 = await server?.cpuMicros();
  const out = { wallMs: round(wallMs), cpuMs: round((used.user + used.system) / 1000) };
  return server0 === undefined || server1 === undefined ? out : { ...out, serverCpuMs: round((server1 - server0) / 1000) };
}

async function medianMs(runs: number, work: () => Promise<unknown>): Promise<{ median: number; min: number; max: number; n: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timeMs(work));
  return spread(times, 4);
}

/** Where the watcher's calls go: the direct connection, or (for the counting pass) the one through the byte-counting proxy. */
interface Wiring {
  readonly counted: ReturnType<typeof countingTransport>;
  readonly server?: DevServer | undefined;
  readonly proxy?: ByteCountingProxy | undefined;
  /** Set while the watcher should use the proxied connection. */
  viaProxy: boolean;
}

/** A watcher on one lane size, at the newest change (so each poll finds nothing new). */
interface PollTarget {
  readonly size: number;
  readonly watcher: ReturnType<typeof sessions>;
  readonly latest: bigint;
  readonly wallMicros: number[];
  readonly clientCpuMicros: number[];
  readonly serverCpuMicros: number[];
}

async function emptyPoll(t: PollTarget): Promise<void> {
  const page = await t.watcher.changes(t.latest);
  // the figure is for a poll with nothing new: a row here would make it another measurement
  if (page.rows.length !== 0) throw new Error(`an empty poll found ${page.rows.length} rows`);
}

/**
 * Per-poll cost of `changes(latest)` with nothing new at every lane size, in rounds that
 * alternate the sizes (rotating which goes first), so load moves all sizes alike; then the
 * requests, records and wire bytes of one poll at each size.
 */
async function emptyPolls(targets: readonly PollTarget[], wiring: Wiring): Promise<Record<string, Record<string, unknown>>> {
  const loadBefore = loadavg().map((l) => round(l));
  for (const t of targets) for (let i = 0; i < 20; i++) await emptyPoll(t);
  for (let r = 0; r < POLL_ROUNDS; r++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(r + k) % targets.length] as PollTarget;
      const server0 = await wiring.server?.cpuMicros();
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < POLLS_PER_ROUND; i++) await emptyPoll(t);
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      const server1 = await wiring.server?.cpuMicros();
      t.wallMicros.push((wall * 1000) / POLLS_PER_ROUND);
      t.clientCpuMicros.push((used.user + used.system) / POLLS_PER_ROUND);
      if (server0 !== undefined && server1 !== undefined) t.serverCpuMicros.push((server1 - server0) / POLLS_PER_ROUND);
    }
  }
  const loadAfter = loadavg().map((l) => round(l));
  const out: Record<string, Record<string, unknown>> = {};
  for (const t of targets) {
    // The counting pass: what one poll asks of the log, and (over TCP) what it puts on the wire.
    wiring.counted.reset();
    wiring.viaProxy = wiring.proxy !== undefined;
    wiring.proxy?.reset();
    try {
      for (let i = 0; i < COUNTED_POLLS; i++) await emptyPoll(t);
    } finally {
      wiring.viaProxy = false;
    }
    const requests: Record<string, number> = {};
    for (const [method, n] of Object.entries(wiring.counted.counts.calls)) requests[method] = n / COUNTED_POLLS;
    out[String(t.size)] = {
      recordsFolded: Number(t.latest),
      wallMicrosPerPoll: spread(t.wallMicros, 1),
      clientCpuMicrosPerPoll: spread(t.clientCpuMicros, 1),
      ...(t.serverCpuMicros.length > 0 ? { serverCpuMicrosPerPoll: spread(t.serverCpuMicros, 1) } : {}),
      requestsPerPoll: requests,
      recordsReadPerPoll: wiring.counted.counts.records / COUNTED_POLLS,
      ...(wiring.proxy !== undefined ? { wireBytesPerPoll: { sent: wiring.proxy.sent / COUNTED_POLLS, received: wiring.proxy.received / COUNTED_POLLS } } : {}),
      loadAverage: { before: loadBefore, after: loadAfter },
    };
  }
  return out;
}

/** max/min of the medians of one per-poll figure across the sizes. */
function flatness(polls: Record<string, Record<string, unknown>>, figure: string): number | undefined {
  const medians = Object.values(polls)
    .map((p) => (p[figure] as { median: number } | undefined)?.median)
    .filter((m): m is number => m !== undefined && m > 0);
  return medians.length === 0 ? undefined : round(Math.max(...medians) / Math.min(...medians));
}

const answer = (v: unknown): string => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

async function run(direct: LogTransport, records: number, options: { server?: DevServer; proxied?: LogTransport; proxy?: ByteCountingProxy } = {}): Promise<Record<string, unknown>> {
  const { server } = options;
  const serverPid = server?.pid;
  const loadBefore = loadavg().map((l) => round(l));
  const sizes = PARTS.has('polls') ? [10_000, 100_000, 1_000_000].filter((n) => n <= records) : [];
  const wiring: Wiring = { counted: countingTransport(() => (wiring.viaProxy ? (options.proxied as LogTransport) : direct)), server, proxy: options.proxy, viaProxy: false };
  const laneOf = (size: number): string => (size === records ? 'bench' : `bench-${size}`);
  let built: Built | undefined;
  // The polled lanes smaller than the main one are their own streams, filled beside it.
  const load = await phase(server, async () => {
    built = await fill(direct, 'bench', records);
    for (const size of sizes) if (laneOf(size) !== 'bench') await fill(direct, laneOf(size), size);
  });
  const firstFolds: Record<string, unknown> = {};
  let polls: Record<string, Record<string, unknown>> = {};
  if (sizes.length > 0) {
    const targets: PollTarget[] = [];
    for (const size of sizes) {
      const watcher = sessions(AgdxClient.from(wiring.counted.transport, { stream: laneOf(size) }), undefined, { snapshots: false });
      let latest = 0n;
      firstFolds[String(size)] = await phase(server, async () => (latest = await watcher.reads.latestChange()));
      targets.push({ size, watcher, latest, wallMicros: [], clientCpuMicros: [], serverCpuMicros: [] });
    }
    polls = await emptyPolls(targets, wiring);
  }
  // The watchers' folds are garbage from here on: a new process would not carry them.
  const out: Record<string, unknown> = {
    records,
    sessions: Math.floor(records / PER_SESSION),
    loadAverage: { before: loadBefore },
    load: { ...load, recordsPerSecond: Math.round((records + sizes.filter((n) => n !== records).reduce((a, n) => a + n, 0)) / (load.wallMs / 1000)), note: 'the main lane and the smaller polled lanes' },
  };
  if (sizes.length > 0) {
    out.emptyPoll = {
      watcherFirstFold: firstFolds,
      bySize: polls,
      medianMaxOverMin: { wall: flatness(polls, 'wallMicrosPerPoll'), clientCpu: flatness(polls, 'clientCpuMicrosPerPoll'), serverCpu: flatness(polls, 'serverCpuMicrosPerPoll') },
      target: 'flat across sizes',
    };
  }
  if (PARTS.has('fold')) out.reads = await foldRounds(direct, (built as Built), server);
  (out.loadAverage as Record<string, unknown>).after = loadavg().map((l) => round(l));
  return out;
}

/**
 * Rounds that alternate a reader folding the whole lane with a new reader starting from a fold
 * snapshot (written after the first full fold), each after a full collection, so the two are
 * compared under the same load; the first round also measures repeated gets.
 */
async function foldRounds(transport: LogTransport, built: Built, server: DevServer | undefined): Promise<Record<string, unknown>> {
  const { laser, target, targetPositions } = built;
  const full: Awaited<ReturnType<typeof phase>>[] = [];
  const fromSnapshot: Awaited<ReturnType<typeof phase>>[] = [];
  let first: Record<string, unknown> = {};
  let expected = '';
  let same = true;
  let startedFrom: unknown;
  let heapUsedMB = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // The full-fold reader lives only in this function, so its fold is garbage before the snapshot start.
    await (async () => {
      const reader = sessions(laser, undefined, { snapshots: false });
      collectGarbage();
      full.push(await phase(server, () => reader.get(target)));
      if (r > 0) return;
      const info = await reader.get(target);
      const repeatedGet = await medianMs(GETS, () => reader.get(target));
      const ownRecordsBaseline = await medianMs(GETS, () => ownRecords(transport, targetPositions));
      let written: Awaited<ReturnType<typeof reader.snapshot>> | undefined;
      const snapshotWriteMs = await timeMs(async () => (written = await reader.snapshot()));
      expected = answer(await reader.get(target));
      first = {
        targetEvents: Number(info?.events ?? 0n),
        repeatedGet: { ms: repeatedGet, ownRecordsBaselineMs: ownRecordsBaseline, ratio: round(repeatedGet.median / ownRecordsBaseline.median, 4), target: '<= 2' },
        snapshot: { bytes: written?.bytes, sessions: written?.sessions, writeMs: round(snapshotWriteMs) },
      };
    })();
    // a new reader, as a new process would start it (nothing of the full-fold reader kept)
    const fresh = sessions(laser);
    collectGarbage();
    heapUsedMB = Math.round(process.memoryUsage().heapUsed / 1e6);
    fromSnapshot.push(await profiled(`snapshot-start-${r}`, () => phase(server, () => fresh.get(target))));
    startedFrom = (await fresh.sources(target)).start.from;
    same &&= startedFrom === 'snapshot' && answer(await fresh.get(target)) === expected;
  }
  const figure = (phases: typeof full, key: 'wallMs' | 'cpuMs' | 'serverCpuMs') => {
    const values = phases.map((p) => p[key]).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : spread(values);
  };
  const ratios = (key: 'wallMs' | 'cpuMs') => spread(full.map((f, i) => (fromSnapshot[i]?.[key] ?? 0) / Math.max(0.001, f[key])), 4);
  return {
    ...first,
    snapshotStart: {
      rounds: ROUNDS,
      fullFold: { wallMs: figure(full, 'wallMs'), cpuMs: figure(full, 'cpuMs'), serverCpuMs: figure(full, 'serverCpuMs') },
      fromSnapshot: { wallMs: figure(fromSnapshot, 'wallMs'), cpuMs: figure(fromSnapshot, 'cpuMs'), serverCpuMs: figure(fromSnapshot, 'serverCpuMs') },
      ratioPerRound: { wall: ratios('wallMs'), cpu: ratios('cpuMs') },
      target: '<= 0.05',
      startedFrom,
      heapUsedMBAtStart: heapUsedMB,
      sameAnswer: same,
    },
  };
}

/** Runs `work` under the V8 CPU profiler when AGDX_BENCH_READS_PROFILE names a directory, writing `<name>-<time>.cpuprofile` there. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.AGDX_BENCH_READS_PROFILE;
  if (dir === undefined || dir === '') return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/** A full collection before a timed phase (the bench runs with --expose-gc), so one phase's garbage is not billed to the next. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

const out: Record<string, unknown> = { machine: machine(), knobs: { RECORDS, DISK_RECORDS, ROUNDS, POLL_ROUNDS, POLLS_PER_ROUND, COUNTED_POLLS, parts: [...PARTS] } };
if (RECORDS > 0) out.memoryLog = await run(new MemoryLog(), RECORDS);
if (DISK_RECORDS > 0) {
  const dir = mkdtempSync(join(tmpdir(), 'agdx-reads-'));
  const server = await startDevServer(['--data', dir, '--fsync', 'interval']);
  const proxy = await byteCountingProxy(server.port);
  const transport = await IggyTransport.connect({ port: server.port, heartbeatIntervalMs: 0 });
  const proxied = await IggyTransport.connect({ port: proxy.port, heartbeatIntervalMs: 0 });
  try {
    out.devServerOnDisk = await run(transport, DISK_RECORDS, { server, proxied, proxy });
  } finally {
    await proxied.close();
    await transport.close();
    await proxy.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
out.note =
  'reads.repeatedGet: a repeated sessions.get(id) of a reader that keeps its fold (median, min, max of GETS runs), divided by reading and decoding that session\'s own records by offset; ' +
  'reads.snapshotStart: ROUNDS alternating rounds of the first get of a reader folding the whole lane and the first get of a new reader starting from the fold snapshot, each after a full collection; ratioPerRound divides the second by the first of the same round. ' +
  'emptyPoll: sessions.changes(latest) with nothing new (what each watch poll does) on lanes of 10k, 100k and 1M records (the smaller ones their own streams), POLL_ROUNDS rounds that each run POLLS_PER_ROUND polls at every size in rotating order, each figure divided by the polls of its round; ' +
  'requestsPerPoll, recordsReadPerPoll and wireBytesPerPoll (dev server: bytes through a loopback proxy, sent = requests, received = replies) from COUNTED_POLLS further polls. ' +
  'cpuMs / clientCpu is this process (user + system, process.cpuUsage); serverCpuMs / serverCpu is the dev server process\'s own process.cpuUsage, asked over IPC before and after. ' +
  'The watcher reaches the log through a counting wrapper (a few function calls per request).';
console.log(JSON.stringify(out, null, 2));
process.exit(0);
