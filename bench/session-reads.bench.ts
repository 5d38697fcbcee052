// @agdx/sessions reads that keep their fold (issue 16), on a lane of RECORDS records over SESSIONS
// sessions (100 per session, interleaved over 4 partitions), on the embedded MemoryLog and on the
// dev server with data on disk (over loopback TCP, another process):
//  1. a repeated `sessions.get(id)` in the same process, against reading and decoding that
//     session's own records by their offsets (target: at most 2x);
//  2. a fresh reader that starts from a fold snapshot, against a full fold of the log
//     (target: at most 5%);
//  3. a change-feed poll with nothing new (what every `watch` poll does) at 10k, 100k and 1M
//     records (target: the same cost at every size).
// Baselines are measured in the same run. Run: pnpm bench session-reads → one JSON object on stdout.
// AGDX_BENCH_READS_RECORDS (default 1,000,000; 0 skips MemoryLog) and AGDX_BENCH_READS_DISK_RECORDS
// (default 100,000; 0 skips the dev server) change the sizes. The dev server at 1,000,000 records is
// opt-in because it takes about 20 minutes on a loaded 2-core machine: the lane is loaded with
// 1,000 records per append (6.5 minutes at a load average of 17), and the full fold it is compared
// against reads every record over TCP (3.5 minutes). CI runs no benchmark. Each phase reports wall-clock and the bench process's CPU time
// (the dev server's own CPU time is read from /proc where there is one).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgdxClient, readAgentMessage, SESSIONS_TOPIC } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog, partitionForKey, type AppendRecord, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { startDevServer } from './support/dev-server.js';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const RECORDS = Number(process.env.AGDX_BENCH_READS_RECORDS ?? 1_000_000);
const DISK_RECORDS = Number(process.env.AGDX_BENCH_READS_DISK_RECORDS ?? 100_000);
const PER_SESSION = 100;
const PARTITIONS = 4;
const POLLS = 200;
const GETS = 200;
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

/**
 * Appends records round by round (every session one record per round) until the lane holds
 * `upTo` records, calling `at(n)` whenever it holds one of `checkpoints`.
 */
async function fill(transport: LogTransport, upTo: number, checkpoints: readonly number[], at: (records: number) => Promise<void>): Promise<Built> {
  const laser = AgdxClient.from(transport, { stream: 'bench' });
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
  const pending = [...checkpoints].sort((a, b) => a - b);
  for (let round = 0; round < PER_SESSION && written < upTo; round++) {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const sessionsHere = byPartition[partition] as { records: AppendRecord[] }[];
      for (let from = 0; from < sessionsHere.length && written < upTo; from += 1000) {
        let chunk = sessionsHere.slice(from, from + 1000).map((s) => s.records[round % 2] as AppendRecord);
        chunk = chunk.slice(0, upTo - written);
        while (chunk.length > 0) {
          // split at the next checkpoint, so the poll there sees exactly that many records
          const piece = chunk.slice(0, (pending[0] ?? upTo) - written);
          chunk = chunk.slice(piece.length);
          const result = await transport.append({ stream: 'bench', topic: SESSIONS_TOPIC, records: piece, routing: { partition }, payloadsImmutable: true });
          // the target is the first session of its partition: the first record of each round's first batch
          if (partition === targetPartition && from === 0 && targetPositions.length === round) targetPositions.push({ partition, offset: result.baseOffset });
          written += piece.length;
          while (pending[0] !== undefined && written >= pending[0]) await at(pending.shift() as number);
        }
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

/** CPU time (user + system) of a process in ms from /proc, or undefined where there is no /proc. */
function procCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux)
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Wall-clock, this process's CPU time and the server's CPU time of one run of `work`, in ms. */
async function phase(serverPid: number | undefined, work: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number; serverCpuMs?: number }> {
  const cpu = process.cpuUsage();
  const server = procCpuMs(serverPid);
  const wallMs = await timeMs(work);
  const used = process.cpuUsage(cpu);
  const serverAfter = procCpuMs(serverPid);
  const out = { wallMs: round(wallMs), cpuMs: round((used.user + used.system) / 1000) };
  return server === undefined || serverAfter === undefined ? out : { ...out, serverCpuMs: serverAfter - server };
}

async function medianMs(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timeMs(work));
  return median(times);
}

async function run(transport: LogTransport, records: number, serverPid?: number): Promise<Record<string, unknown>> {
  const loadBefore = loadavg().map((l) => round(l));
  const sizes = [10_000, 100_000, 1_000_000].filter((n) => n <= records);
  const polls: Record<string, { pollMicros: number; recordsFolded: number }> = {};
  let watcher: ReturnType<typeof sessions> | undefined;
  let built: Built | undefined;
  const load = await phase(serverPid, async () => {
    built = await fill(transport, records, sizes, async (n) => {
      watcher ??= sessions(AgdxClient.from(transport, { stream: 'bench' }), undefined, { snapshots: false });
      const latest = await watcher.reads.latestChange();
      const ms = await medianMs(POLLS, () => watcher!.changes(latest));
      polls[String(n)] = { pollMicros: Math.round(ms * 1000 * 10) / 10, recordsFolded: Number(latest) };
    });
  });
  const { laser, target, targetPositions } = built as Built;
  // The watcher's fold is garbage from here on: a new process would not carry it.
  watcher = undefined;
  const answer = (v: unknown): string => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  // 1. full fold, then repeated gets in the same process; 2a. a snapshot. The first reader lives only
  // in this function, so its fold of the whole lane is garbage before the snapshot start below.
  const measured = await (async () => {
    const reader = sessions(laser, undefined, { snapshots: false });
    collectGarbage();
    let fullFoldMs = 0;
    const fullFold = await phase(serverPid, async () => (fullFoldMs = await timeMs(() => reader.get(target))));
    const info = await reader.get(target);
    const repeatedGetMs = await medianMs(GETS, () => reader.get(target));
    const ownRecordsMs = await medianMs(GETS, () => ownRecords(transport, targetPositions));
    let written: Awaited<ReturnType<typeof reader.snapshot>> | undefined;
    const snapshotWriteMs = await timeMs(async () => (written = await reader.snapshot()));
    return { fullFoldMs, fullFold, info, repeatedGetMs, ownRecordsMs, written, snapshotWriteMs, expected: answer(await reader.get(target)) };
  })();
  const { fullFoldMs, fullFold, info, repeatedGetMs, ownRecordsMs, written, snapshotWriteMs, expected } = measured;
  // 2b. a fresh reader that starts from the snapshot, as a new process would (nothing of the first reader kept)
  const fresh = sessions(laser);
  collectGarbage();
  const heapUsedMB = Math.round(process.memoryUsage().heapUsed / 1e6);
  let snapshotStartMs = 0;
  const snapshotStart = await phase(serverPid, async () => (snapshotStartMs = await timeMs(() => fresh.get(target))));
  const fromSnapshot = (await fresh.sources(target)).start.from;
  const same = answer(await fresh.get(target)) === expected;
  const pollValues = Object.values(polls).map((p) => p.pollMicros);
  return {
    records,
    sessions: Math.floor(records / PER_SESSION),
    loadAverage: { before: loadBefore, after: loadavg().map((l) => round(l)) },
    load: { ...load, recordsPerSecond: Math.round(records / (load.wallMs / 1000)), note: 'includes the empty polls taken at each checkpoint' },
    targetEvents: Number(info?.events ?? 0n),
    repeatedGet: {
      medianMs: round(repeatedGetMs),
      ownRecordsBaselineMs: round(ownRecordsMs),
      ratio: round(repeatedGetMs / ownRecordsMs),
      target: '<= 2',
    },
    snapshotStart: {
      fullFoldMs: round(fullFoldMs),
      snapshotStartMs: round(snapshotStartMs),
      ratio: round(snapshotStartMs / fullFoldMs, 4),
      cpu: { fullFold, snapshotStart, cpuRatio: round(snapshotStart.cpuMs / Math.max(1, fullFold.cpuMs), 4) },
      target: '<= 0.05',
      startedFrom: fromSnapshot,
      heapUsedMBAtStart: heapUsedMB,
      sameAnswer: same,
      snapshotBytes: written?.bytes,
      snapshotWriteMs: round(snapshotWriteMs),
    },
    emptyPoll: { bySize: polls, maxOverMin: round(Math.max(...pollValues) / Math.min(...pollValues)), target: 'flat across sizes' },
  };
}

/** A full collection before a timed phase (the bench runs with --expose-gc), so one phase's garbage is not billed to the next. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

const out: Record<string, unknown> = { machine: machine() };
if (RECORDS > 0) out.memoryLog = await run(new MemoryLog(), RECORDS);
if (DISK_RECORDS > 0) {
  const dir = mkdtempSync(join(tmpdir(), 'agdx-reads-'));
  const server = await startDevServer(['--data', dir, '--fsync', 'interval']);
  const transport = await IggyTransport.connect({ port: server.port, heartbeatIntervalMs: 0 });
  try {
    out.devServerOnDisk = await run(transport, DISK_RECORDS, server.pid);
  } finally {
    await transport.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
out.note =
  'Times are medians of repeated runs in one process except fullFoldMs, snapshotStartMs and snapshotWriteMs (one run each). ' +
  'repeatedGet.ratio = a repeated sessions.get(id) of a reader that keeps its fold, over reading and decoding that session\'s own records by offset; ' +
  'snapshotStart.ratio = the first get of a new reader starting from the fold snapshot, over the first get of a reader folding the whole lane; ' +
  'emptyPoll = sessions.changes(latest) with nothing new (what each watch poll does), at each lane size. ' +
  'cpu figures: cpuMs is this process (user + system), serverCpuMs the dev server process, both over the same phase. ' +
  'A full garbage collection runs before the full fold and before the snapshot start; the first reader and the watcher are dropped before the snapshot start.';
console.log(JSON.stringify(out, null, 2));
process.exit(0);
