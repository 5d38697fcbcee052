// What an A2A GetTask costs on a log with many tasks: the records it reads (counted by a wrapping
// transport, so exact and independent of load) and its CPU time, for a recent id, an old id, an
// id nobody submitted, many random ids (a polling client or a hostile one), and an old id again
// after NEW_TASKS more tasks ended. The baseline is another checkout's bridge in the same process
// (AGDX_BENCH_BASELINE_DIR=<checkout with dependencies installed>, for example /work/main), run on
// the same log with its own counting wrapper; without it, only ours is measured.
// Knobs: AGDX_BENCH_A2A_TASKS (default 20,000 tasks, one Completed reply each, on the shared layout
// over 4 partitions), AGDX_BENCH_A2A_NEW_TASKS (1,000), AGDX_BENCH_RUNS (rounds, default 7).
// Run: pnpm bench a2a-get-task → one JSON object on stdout. CI runs no benchmark.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { ConversationId, CorrelationId } from '@agdx/wire';
import { compareAlternating, sinkBit } from './support/alternating.js';
import { countingTransport } from './support/counting-transport.js';
import { machine } from './support/machine.js';
import { spread } from './support/stats.js';

const TASKS = Number(process.env.AGDX_BENCH_A2A_TASKS ?? 20_000);
const NEW_TASKS = Number(process.env.AGDX_BENCH_A2A_NEW_TASKS ?? 1_000);
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
const BASELINE_DIR = process.env.AGDX_BENCH_BASELINE_DIR || undefined;
const STREAM = 'a2a-bench';
const GATEWAY = 'a2a-gateway';
const WORKER = 'worker';
/** Random unknown ids asked per side in the counted pass. */
const RANDOM_IDS = 200;
const body = new TextEncoder().encode('done');

/** What a GetTask-capable bridge needs to offer here: ours and the baseline's alike. */
interface TaskReader {
  task(id: string): Promise<{ state: unknown }>;
}
type BridgeClass = new (client: AgdxClient, id: string, requestTopic: string, replyTopic: string) => TaskReader;

async function completeTasks(laser: AgdxClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const task = ConversationId.new();
    await laser.agdx(AgentTopic.Sessions, WORKER, task).respond(CorrelationId.fromBytes(task.toBytes()), body).withTarget(GATEWAY).withTaskState('Completed').send();
    ids.push(task.toString());
  }
  return ids;
}

/** Records one GetTask reads, and that it answered. */
async function readsOf(bridge: TaskReader, counts: { records: number }, id: string): Promise<number> {
  const before = counts.records;
  await bridge.task(id);
  return counts.records - before;
}

async function loadBaseline(): Promise<BridgeClass | undefined> {
  if (BASELINE_DIR === undefined) return undefined;
  const mod = (await import(pathToFileURL(join(BASELINE_DIR, 'packages/bridge-a2a/src/index.ts')).href)) as { A2aBridge: BridgeClass };
  return mod.A2aBridge;
}

const log = new MemoryLog();
const writer = AgdxClient.from(log, { stream: STREAM });
await writer.bootstrap(4);
const ids = await completeTasks(writer, TASKS);
const Baseline = await loadBaseline();
const sides: [string, BridgeClass][] = [['ours', A2aBridge as unknown as BridgeClass]];
if (Baseline !== undefined) sides.push(['baseline', Baseline]);

// One counted bridge per side over the same log, each behind its own counting wrapper.
const counted = sides.map(([name, Bridge]) => {
  const counting = countingTransport(() => log as LogTransport);
  const bridge = new Bridge(AgdxClient.from(counting.transport, { stream: STREAM }), GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
  return { name, bridge, counts: counting.counts };
});
const recordsRead: Record<string, Record<string, number>> = {};
for (const { name, bridge, counts } of counted) {
  const r: Record<string, number> = {};
  r.recentIdFirst = await readsOf(bridge, counts, ids[ids.length - 1] as string);
  r.recentIdAgain = await readsOf(bridge, counts, ids[ids.length - 1] as string);
  r.oldIdFirst = await readsOf(bridge, counts, ids[0] as string);
  r.oldIdAgain = await readsOf(bridge, counts, ids[0] as string);
  r.unknownId = await readsOf(bridge, counts, ConversationId.new().toString());
  let random = 0;
  for (let i = 0; i < RANDOM_IDS; i++) random += await readsOf(bridge, counts, ConversationId.new().toString());
  r.randomUnknownIdMean = random / RANDOM_IDS;
  // the same again, now that every partition has been read once
  random = 0;
  for (let i = 0; i < RANDOM_IDS; i++) random += await readsOf(bridge, counts, ConversationId.new().toString());
  r.randomUnknownIdNextMean = random / RANDOM_IDS;
  recordsRead[name] = r;
}
const added = await completeTasks(writer, NEW_TASKS);
for (const { name, bridge, counts } of counted) {
  const r = recordsRead[name] as Record<string, number>;
  r.oldIdAfterNewTasks = await readsOf(bridge, counts, ids[1] as string);
  r.newIdAfterThat = await readsOf(bridge, counts, added[added.length - 1] as string);
}

// CPU of the first GetTask of a fresh bridge (it reads the id's partition from its start: the
// index decodes every record there, the baseline's scan only the task's own), alternating sides.
const firstLookupCpuMs: Record<string, number[]> = Object.fromEntries(sides.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  for (const [name, Bridge] of order) {
    const bridge = new Bridge(AgdxClient.from(log, { stream: STREAM }), GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    const c0 = process.cpuUsage();
    await bridge.task(ConversationId.new().toString());
    const cpu = process.cpuUsage(c0);
    firstLookupCpuMs[name]?.push((cpu.user + cpu.system) / 1000);
  }
}

// Heap the index holds per task: a fresh bridge of ours asks 64 random ids, which reads every
// partition (missing one has a chance of about 4e-8), measured with full GCs around it.
const gc = (globalThis as { gc?: () => void }).gc;
let indexHeapBytesPerTask: number | undefined;
if (gc !== undefined) {
  const fresh = new A2aBridge(AgdxClient.from(log, { stream: STREAM }), GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 64; i++) await fresh.task(ConversationId.new());
  gc();
  indexHeapBytesPerTask = Math.round((process.memoryUsage().heapUsed - before) / (TASKS + NEW_TASKS));
  if ((await fresh.task(ids[0] as string)).state === undefined) throw new Error('unreachable');
}

// CPU time of a polling client asking random unknown ids, alternating ours and the baseline.
const [oursBridge, baselineBridge] = [counted[0]?.bridge, counted[1]?.bridge];
const cpu =
  oursBridge !== undefined && baselineBridge !== undefined
    ? await compareAlternating(
        // a fresh id every call on both sides: an id asked before may be kept, which is not this workload
        { async: true, run: () => oursBridge.task(ConversationId.new().toString()) },
        { async: true, run: () => baselineBridge.task(ConversationId.new().toString()) },
        { rounds: ROUNDS },
      )
    : undefined;

console.log(
  JSON.stringify(
    {
      name: 'a2a-get-task',
      machine: machine(),
      tasks: TASKS,
      newTasks: NEW_TASKS,
      layout: 'shared, 4 partitions, MemoryLog',
      baseline: BASELINE_DIR ?? 'none (set AGDX_BENCH_BASELINE_DIR)',
      recordsReadPerGetTask: recordsRead,
      indexHeapBytesPerTask,
      firstLookupCpuMs: Object.fromEntries(Object.entries(firstLookupCpuMs).map(([name, values]) => [name, spread(values)])),
      randomUnknownIdGetTasksPerCpuSecond: cpu,
      sink: sinkBit(),
      notes:
        'recordsReadPerGetTask counts the records the transport returned for one GetTask (exact, load-independent); randomUnknownIdGetTasksPerCpuSecond compares GetTasks of never-submitted ids per CPU second of this process in alternating rounds (ratio above 1: ours is cheaper); indexHeapBytesPerTask is the heap a fresh bridge of ours grew by (full GC before and after) once its index held every task, divided by the tasks (approximate: the layout check caches count too)',
    },
    null,
    2,
  ),
);
