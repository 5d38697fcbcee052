// @agdx/sessions hot paths on the embedded MemoryLog:
//  1. append throughput: `session.append` (governor-free plain turn: provenance headers + keyed
//     append) against a baseline that appends the same pre-built record straight to the log;
//  2. context() latency for one session among 1,000 sessions sharing 4 partitions on each of the
//     six turn topics, with the read window full (≥ 10,000 records on every partition), against the
//     naive reader that decodes every window record and compares its conversation: the first read
//     of a factory (it reads the whole window), and a repeated read after one appended turn (the
//     factory kept its window, so it reads what the log gained), alternating in each round;
//  3. replay throughput in turns/s over one long session, against reading and decoding the same
//     records with readAgentMessage (the floor any turn reader pays).
// With AGDX_BENCH_BASELINE_DIR=<checkout with dependencies installed> (for example /work/main),
// that checkout's @agdx/sessions runs in the same process on the same logs, alternating with ours
// in each round: the first context() of a new factory (CPU ms and records read) and replay (CPU
// turns/s, and the heap held halfway through the fold after a full GC).
// Run: pnpm exec tsx --conditions=@agdx/source bench/sessions.bench.ts → one JSON object on stdout.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgdxClient, readAgentMessage } from '@agdx/agents';
import { CONTEXT_READ_WINDOW, DEFAULT_SESSION_TOPICS, sessions, Checkpoint, type Session, type SessionTurn } from '@agdx/sessions';
import { MemoryLog, partitionForKey, type AppendRecord, type LogTransport, type ReadRequest } from '@agdx/transport';
import { ConversationId, encodeProvenanceHeaders } from '@agdx/wire';
import { median } from './support/stats.js';

const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 5);
const APPENDS = Number(process.env.AGDX_BENCH_APPENDS ?? 20_000);
const SESSIONS = 1_000;
const PARTITIONS = 4;
const PER_PARTITION = CONTEXT_READ_WINDOW + 2_000;
const REPLAY_TURNS = Number(process.env.AGDX_BENCH_REPLAY ?? 50_000);
const payload = new TextEncoder().encode('the model said something moderately long about the ticket');
const BASELINE_DIR = process.env.AGDX_BENCH_BASELINE_DIR || undefined;
/** The session whose context is read among the crowd, and the long session replayed. */
const TARGET = 'bench-session-0';
const REPLAY_SESSION = 'bench-replay';

/** What the bench asks of a sessions package: ours, or the baseline checkout's. */
interface SessionsPackage {
  sessions(client: AgdxClient): {
    // by name (`create`), since each package checks ids and checkpoints against its own classes
    create(id: string): {
      context(): Promise<unknown[]>;
      replay<S>(checkpoint: unknown, state: S, fold: (state: S, turn: SessionTurn) => S): Promise<S>;
    };
  };
  readonly Checkpoint: { fromJSON(value: unknown): unknown };
}

async function baselinePackage(): Promise<SessionsPackage | undefined> {
  if (BASELINE_DIR === undefined) return undefined;
  return (await import(pathToFileURL(join(BASELINE_DIR, 'packages/sessions/src/index.ts')).href)) as SessionsPackage;
}

/** Counts the records the transport returned, so a read's cost in records is exact whatever the load. */
function counted(log: MemoryLog): { transport: LogTransport; records: () => number } {
  let records = 0;
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          const out = await target.read(request);
          records += out.length;
          return out;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return { transport, records: () => records };
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Median, minimum and maximum of a few figures, rounded: the spread a claim must stay within. */
function spread(values: readonly number[]): { median: number; min: number; max: number } {
  const round = (n: number): number => Number(n.toFixed(n >= 100 ? 0 : 2));
  return { median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

// CPU seconds of this process: on a machine shared with other work, wall-clock figures swell with
// the load while CPU time stays close to what the code costs. Both are reported.
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function client(partitions: number): Promise<{ log: MemoryLog; laser: AgdxClient }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'bench' });
  await laser.bootstrap(partitions);
  return { log, laser };
}

async function appendRun(): Promise<{ ours: number; baseline: number }> {
  const { log, laser } = await client(4);
  const session = sessions(laser).create('bench-append');
  let t = performance.now();
  for (let i = 0; i < APPENDS; i++) await session.append('model.response', payload);
  const ours = APPENDS / ((performance.now() - t) / 1000);
  const record: AppendRecord = { headers: encodeProvenanceHeaders({ conversation: session.conversation }), payload };
  const key = session.conversation.toString();
  t = performance.now();
  for (let i = 0; i < APPENDS; i++) await log.append({ stream: 'bench', topic: 'agent.llm_io', records: [record], routing: { key } });
  const baseline = APPENDS / ((performance.now() - t) / 1000);
  return { ours, baseline };
}

/** Fills every partition of the six turn topics past the window with turns of 1,000 sessions. */
async function crowdedLog(): Promise<{ log: MemoryLog; laser: AgdxClient; target: Session; targetTurns: number }> {
  const { log, laser } = await client(PARTITIONS);
  const factory = sessions(laser);
  const ids = Array.from({ length: SESSIONS }, (_, i) => ConversationId.derive(i === 0 ? TARGET : `bench-session-${i}`));
  const headers = ids.map((conversation) => encodeProvenanceHeaders({ conversation }));
  // a session's records go to its own partition, the one its key routes to (where append puts them)
  const homes = await Promise.all(ids.map((id) => partitionForKey(id.toString(), PARTITIONS)));
  for (const topic of DEFAULT_SESSION_TOPICS) {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const mine = ids.map((_, i) => i).filter((i) => homes[i] === partition);
      for (let written = 0; written < PER_PARTITION; written += 1000) {
        const records: AppendRecord[] = [];
        for (let k = 0; k < 1000; k++) records.push({ headers: headers[mine[(written + k) % mine.length] as number] as AppendRecord['headers'], payload });
        await log.append({ stream: 'bench', topic, records, routing: { partition } });
      }
    }
  }
  const target = factory.open(ids[0] as ConversationId);
  return { log, laser, target, targetTurns: (await target.turns()).length };
}

/** The naive reader: decode every window record with readAgentMessage and compare its conversation. */
async function naiveWindowScan(log: MemoryLog, conversation: ConversationId): Promise<number> {
  let n = 0;
  for (const topic of DEFAULT_SESSION_TOPICS) {
    const d = await log.describeTopic({ stream: 'bench', topic });
    for (const p of d.partitions) {
      let offset = p.nextOffset - BigInt(CONTEXT_READ_WINDOW);
      while (offset < p.nextOffset) {
        const batch = await log.read({ stream: 'bench', topic, partition: p.partition, offset, maxCount: 1000 });
        for (const record of batch) if (readAgentMessage(record, { stream: 'bench', topic }).provenance.conversation.equals(conversation)) n++;
        offset += BigInt(batch.length);
      }
    }
  }
  return n;
}

/**
 * One replay of the long session's turns since `start` by `pkg`: CPU turns/s, then (in a second,
 * untimed replay) the heap still held halfway through the fold, after a full GC (`--expose-gc`):
 * what the replay keeps besides the fold's own state, which here is a number.
 */
async function replayBy(pkg: SessionsPackage, laser: AgdxClient, start: Checkpoint): Promise<{ cpu: number; heapMiB: number }> {
  const session = pkg.sessions(laser).create(REPLAY_SESSION);
  const checkpoint = pkg.Checkpoint.fromJSON(start.toJSONText());
  const cpu = cpuSeconds();
  const count = await session.replay(checkpoint, 0, (n) => n + 1);
  const seconds = cpuSeconds() - cpu;
  if (count !== REPLAY_TURNS) throw new Error(`replay folded ${count} of ${REPLAY_TURNS} turns`);
  if (gc === undefined) return { cpu: count / seconds, heapMiB: Number.NaN };
  gc();
  const before = process.memoryUsage().heapUsed;
  let held = Number.NaN;
  await session.replay(checkpoint, 0, (n) => {
    if (n === REPLAY_TURNS / 2) {
      gc();
      held = process.memoryUsage().heapUsed - before;
    }
    return n + 1;
  });
  return { cpu: count / seconds, heapMiB: held / (1024 * 1024) };
}

async function replayRun(baseline: SessionsPackage | undefined): Promise<{ ours: number; oursCpu: number; baseline: number; oursHeapMiB: number; oursAlternatedCpu: number; main?: { cpu: number; heapMiB: number } }> {
  const { log, laser } = await client(1);
  const session = sessions(laser).create(REPLAY_SESSION);
  const headers = encodeProvenanceHeaders({ conversation: session.conversation });
  const start = await session.checkpoint();
  for (let written = 0; written < REPLAY_TURNS; written += 1000) {
    await log.append({ stream: 'bench', topic: 'agent.tool_calls', records: Array.from({ length: 1000 }, () => ({ headers, payload })), routing: { partition: 0 } });
  }
  let t = performance.now();
  const cpu = cpuSeconds();
  const count = await session.replay(start, 0, (n) => n + 1);
  const oursCpu = count / (cpuSeconds() - cpu);
  const ours = count / ((performance.now() - t) / 1000);
  t = performance.now();
  let raw = 0;
  for (let offset = 0n; offset < BigInt(REPLAY_TURNS); ) {
    const batch = await log.read({ stream: 'bench', topic: 'agent.tool_calls', partition: 0, offset, maxCount: 1000 });
    for (const record of batch) if (readAgentMessage(record, { stream: 'bench', topic: 'agent.tool_calls' }).payload.length > 0) raw++;
    offset += BigInt(batch.length);
  }
  const baselineRate = raw / ((performance.now() - t) / 1000);
  if (count !== REPLAY_TURNS) throw new Error(`replay folded ${count} of ${REPLAY_TURNS} turns`);
  // the same replay by ours and by the baseline package, alternating which goes first
  const ourPackage: SessionsPackage = { sessions: (c) => sessions(c), Checkpoint };
  const order = baseline === undefined ? [ourPackage] : replayRound++ % 2 === 0 ? [ourPackage, baseline] : [baseline, ourPackage];
  const measured = new Map<SessionsPackage, { cpu: number; heapMiB: number }>();
  for (const pkg of order) measured.set(pkg, await replayBy(pkg, laser, start));
  const mine = measured.get(ourPackage) as { cpu: number; heapMiB: number };
  return { ours, oursCpu, baseline: baselineRate, oursHeapMiB: mine.heapMiB, oursAlternatedCpu: mine.cpu, ...(baseline !== undefined ? { main: measured.get(baseline) } : {}) };
}

/** Which side replays first this round: alternates. */
let replayRound = 0;

async function main(): Promise<void> {
  const appends: { ours: number; baseline: number }[] = [];
  for (let i = 0; i < RUNS; i++) appends.push(await appendRun());

  const baseline = await baselinePackage();
  const crowded = await crowdedLog();
  // the first context() of a new factory, ours and the baseline's alternating, on a counting client
  const probe = counted(crowded.log);
  const probeClient = AgdxClient.from(probe.transport, { stream: 'bench' });
  const firstRead = async (pkg: SessionsPackage): Promise<{ cpuMs: number; records: number }> => {
    const before = probe.records();
    const cpu = cpuSeconds();
    const turns = await pkg.sessions(probeClient).create(TARGET).context();
    const cpuMs = (cpuSeconds() - cpu) * 1000;
    if (turns.length === 0) throw new Error('context() returned nothing');
    return { cpuMs, records: probe.records() - before };
  };
  const ourPackage: SessionsPackage = { sessions: (c) => sessions(c), Checkpoint };
  const versus: { ours: { cpuMs: number; records: number }[]; main: { cpuMs: number; records: number }[] } = { ours: [], main: [] };
  if (baseline !== undefined) {
    for (let i = 0; i < 3; i++) {
      await firstRead(ourPackage);
      await firstRead(baseline);
    }
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        versus.ours.push(await firstRead(ourPackage));
        versus.main.push(await firstRead(baseline));
      } else {
        versus.main.push(await firstRead(baseline));
        versus.ours.push(await firstRead(ourPackage));
      }
    }
  }
  const contextMs: number[] = [];
  const contextCpuMs: number[] = [];
  const repeatedMs: number[] = [];
  const repeatedCpuMs: number[] = [];
  const scanMs: number[] = [];
  const cold = (): Session => sessions(crowded.laser).open(crowded.target.conversation);
  // warm the JIT first: the figure is the steady-state latency of a long-running process
  for (let i = 0; i < 5; i++) {
    await cold().context();
    await crowded.target.context();
  }
  for (let i = 0; i < RUNS; i++) {
    // the first read of a new factory: the whole window
    let t = performance.now();
    let cpu = cpuSeconds();
    const turns = await cold().context();
    contextCpuMs.push((cpuSeconds() - cpu) * 1000);
    contextMs.push(performance.now() - t);
    if (turns.length === 0) throw new Error('context() returned nothing');
    // a repeated read of the kept factory after one more turn: what the log gained
    await crowded.target.append('model.response', payload);
    t = performance.now();
    cpu = cpuSeconds();
    const again = await crowded.target.context();
    repeatedCpuMs.push((cpuSeconds() - cpu) * 1000);
    repeatedMs.push(performance.now() - t);
    if (again.length === 0) throw new Error('a repeated context() returned nothing');
    t = performance.now();
    await naiveWindowScan(crowded.log, crowded.target.conversation);
    scanMs.push(performance.now() - t);
  }

  const replays: Awaited<ReturnType<typeof replayRun>>[] = [];
  for (let i = 0; i < RUNS; i++) replays.push(await replayRun(baseline));

  const appendOurs = median(appends.map((a) => a.ours));
  const appendBase = median(appends.map((a) => a.baseline));
  const ctx = median(contextMs);
  const ctxCpu = median(contextCpuMs);
  const repeated = median(repeatedMs);
  const repeatedCpu = median(repeatedCpuMs);
  const scan = median(scanMs);
  const replayOurs = median(replays.map((r) => r.ours));
  const replayCpu = median(replays.map((r) => r.oursCpu));
  const replayBase = median(replays.map((r) => r.baseline));
  process.stdout.write(
    `${JSON.stringify(
      {
        name: 'sessions',
        environment: {
          node: process.version,
          platform: process.platform,
          arch: process.arch,
          runs: RUNS,
          loadAverage: Number((globalThis as { process?: { getBuiltinModule?: (id: string) => { loadavg(): number[] } } }).process?.getBuiltinModule?.('node:os')?.loadavg()[0]?.toFixed(2)),
        },
        append: {
          turns: APPENDS,
          oursPerSecond: Math.round(appendOurs),
          baselineRawAppendPerSecond: Math.round(appendBase),
          ratio: Number((appendOurs / appendBase).toFixed(3)),
        },
        context: {
          sessions: SESSIONS,
          partitions: PARTITIONS,
          topics: DEFAULT_SESSION_TOPICS.length,
          recordsPerPartition: PER_PARTITION,
          windowRecordsScanned: DEFAULT_SESSION_TOPICS.length * PARTITIONS * CONTEXT_READ_WINDOW,
          sessionTurnsInWindow: crowded.targetTurns,
          oursMedianMs: Number(ctx.toFixed(2)),
          oursMedianCpuMs: Number(ctxCpu.toFixed(2)),
          baselineDecodeEveryRecordMs: Number(scan.toFixed(2)),
          ratio: Number((ctx / scan).toFixed(2)),
          targetMs: 50,
          withinTarget: ctx < 50,
          withinTargetByCpuTime: ctxCpu < 50,
        },
        contextRepeated: {
          method: 'context() of the same factory after one appended turn (the kept window reads what the log gained), alternating with the first read above',
          oursMedianMs: Number(repeated.toFixed(3)),
          oursMedianCpuMs: Number(repeatedCpu.toFixed(3)),
          ratioToFirstReadByCpu: Number((repeatedCpu / ctxCpu).toFixed(4)),
        },
        replay: {
          turns: REPLAY_TURNS,
          oursTurnsPerSecond: Math.round(replayOurs),
          oursTurnsPerCpuSecond: Math.round(replayCpu),
          baselineReadAndDecodePerSecond: Math.round(replayBase),
          ratio: Number((replayOurs / replayBase).toFixed(3)),
          oursHeapHeldMidFoldMiB: Number(median(replays.map((r) => r.oursHeapMiB)).toFixed(1)),
        },
        versusBaseline:
          baseline === undefined
            ? 'none (set AGDX_BENCH_BASELINE_DIR)'
            : {
                checkout: BASELINE_DIR,
                method: 'the same log, ours and the baseline package alternating in each round; CPU time of this process',
                firstContext: {
                  oursCpuMs: spread(versus.ours.map((r) => r.cpuMs)),
                  baselineCpuMs: spread(versus.main.map((r) => r.cpuMs)),
                  oursRecordsRead: versus.ours[0]?.records,
                  baselineRecordsRead: versus.main[0]?.records,
                },
                replay: {
                  oursTurnsPerCpuSecond: spread(replays.map((r) => r.oursAlternatedCpu)),
                  baselineTurnsPerCpuSecond: spread(replays.map((r) => r.main?.cpu ?? Number.NaN)),
                  oursHeapHeldMidFoldMiB: spread(replays.map((r) => r.oursHeapMiB)),
                  baselineHeapHeldMidFoldMiB: spread(replays.map((r) => r.main?.heapMiB ?? Number.NaN)),
                },
              },
      },
      null,
      2,
    )}\n`,
  );
}

await main();
