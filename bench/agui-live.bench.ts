// The AG-UI live handler on a long thread (issue 16, AG-UI part): a POST run on a thread whose
// earlier records a handler already read, against the same request on a handler that reads the
// thread from offset 0 (the behaviour before kept replays: the baseline, measured in the same run).
// The lane holds FILLER records of other conversations (interleaved over 4 partitions) and a
// thread of THREAD_ANSWERS answers; each round appends one more answer (6 records) and some filler,
// then times both requests in alternating order with the process CPU time (user + system).
// Run: pnpm bench agui-live → one JSON object on stdout. AGDX_BENCH_AGUI_FILLER (default 200,000)
// and AGDX_BENCH_AGUI_ROUNDS (default 30) change the sizes.
import { AgdxClient, AgentTopic, SESSIONS_TOPIC } from '@agdx/agents';
import { AguiBridge, type AguiRequestHandler } from '@agdx/agui';
import { MemoryLog, partitionForKey, type AppendRecord } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const FILLER = Number(process.env.AGDX_BENCH_AGUI_FILLER ?? 200_000);
const ROUNDS = Number(process.env.AGDX_BENCH_AGUI_ROUNDS ?? 30);
const THREAD_ANSWERS = 200;
const FILLER_PER_ROUND = 200;
const PARTITIONS = 4;
const text = new TextEncoder();
const user = AgentId.parse('user');
const assistant = AgentId.parse('assistant');

/** One filler record of `conversation` (a command), for its key's partition. */
function filler(conversation: ConversationId): AppendRecord {
  const envelope = AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source: user, target: assistant, correlation: MintUlid.mint(CorrelationId), body: text.encode('"other work"') });
  const r = envelopeRecord(envelope, ContentType.json, { topic: SESSIONS_TOPIC });
  return { headers: r.headers, payload: r.payload };
}

async function appendFiller(log: MemoryLog, count: number): Promise<void> {
  const byPartition: AppendRecord[][] = Array.from({ length: PARTITIONS }, () => []);
  for (let i = 0; i < count; i++) {
    const id = ConversationId.new();
    byPartition[await partitionForKey(id.toString(), PARTITIONS)]?.push(filler(id));
  }
  for (const [partition, records] of byPartition.entries()) {
    for (let i = 0; i < records.length; i += 1_000) await log.append({ stream: 'bench', topic: SESSIONS_TOPIC, records: records.slice(i, i + 1_000), routing: { partition }, payloadsImmutable: true });
  }
}

/** One answer on the thread: a user command, a streamed chat reply of three chunks and the response. */
async function answer(laser: AgdxClient, thread: ConversationId): Promise<CorrelationId> {
  const correlation = MintUlid.mint(CorrelationId);
  await laser.agdx(AgentTopic.Sessions, user, thread).command(correlation, text.encode('"what now?"')).send();
  const send = laser.agdx(AgentTopic.Sessions, assistant, thread);
  const chat = send.stream(correlation, 'chat');
  for (const part of ['Here ', 'is ', 'the answer.']) await chat.write(text.encode(part));
  await chat.finish('stop');
  await send.respond(correlation, text.encode('"done"')).send();
  return correlation;
}

/** Sends a POST run and reads the whole response; returns the events and the CPU ms it took. */
async function timedRun(handler: AguiRequestHandler, thread: ConversationId, runId: string, after?: string): Promise<{ cpuMs: number; events: number; lastId: string | undefined }> {
  const request = new Request('http://bench/agui', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(after !== undefined ? { 'last-event-id': after } : {}) },
    body: JSON.stringify({ threadId: thread.toString(), runId, messages: [], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
  const before = process.cpuUsage();
  const response = await handler(request);
  const body = await response.text();
  const used = process.cpuUsage(before);
  const lines = body.split('\n');
  const events = lines.filter((line) => line.startsWith('data: ')).length;
  const lastId = lines.filter((line) => line.startsWith('id: ')).at(-1)?.slice(4);
  return { cpuMs: (used.user + used.system) / 1_000, events, lastId };
}

function spread(values: readonly number[]): { min: number; median: number; max: number } {
  const round = (v: number) => Number(v.toFixed(3));
  return { min: round(Math.min(...values)), median: round(median(values)), max: round(Math.max(...values)) };
}

async function main(): Promise<void> {
  const loadBefore = machine().loadAverage;
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'bench' });
  await laser.bootstrap(PARTITIONS);
  const thread = ConversationId.new();
  await appendFiller(log, FILLER);
  for (let i = 0; i < THREAD_ANSWERS; i++) await answer(laser, thread);
  const kept = new AguiBridge(laser, { snapshots: false }).handler();
  const first = await timedRun(kept, thread, (await answer(laser, thread)).toString());
  // whole: the run shows the thread's whole history (as HttpAgent asks); resumed: the same run
  // after the Last-Event-ID of the previous round's response, so only the new answer is sent
  const modes = { whole: { ours: [] as number[], baseline: [] as number[], ratios: [] as number[], events: 0 }, resumed: { ours: [] as number[], baseline: [] as number[], ratios: [] as number[], events: 0 } };
  let lastId = first.lastId;
  for (let round = 0; round < ROUNDS; round++) {
    await appendFiller(log, FILLER_PER_ROUND);
    const runId = (await answer(laser, thread)).toString();
    for (const [mode, after] of [['whole', undefined], ['resumed', lastId]] as const) {
      // the baseline: a handler with nothing kept reads every place of the thread from offset 0
      const fresh = new AguiBridge(laser, { snapshots: false }).handler();
      const sides = round % 2 === 0 ? [true, false] : [false, true];
      const took = { ours: 0, baseline: 0 };
      for (const isOurs of sides) {
        const result = await timedRun(isOurs ? kept : fresh, thread, runId, after);
        if (isOurs) took.ours = result.cpuMs;
        else took.baseline = result.cpuMs;
        modes[mode].events = result.events;
        if (mode === 'whole') lastId = result.lastId;
      }
      modes[mode].ours.push(took.ours);
      modes[mode].baseline.push(took.baseline);
      modes[mode].ratios.push(took.ours / took.baseline);
    }
  }
  const report = (m: (typeof modes)['whole']) => ({ eventsPerResponse: m.events, oursCpuMsPerRequest: spread(m.ours), baselineCpuMsPerRequest: spread(m.baseline), oursOverBaseline: spread(m.ratios) });
  const partitionEnd = (await log.describeTopic({ stream: 'bench', topic: SESSIONS_TOPIC })).partitions[await partitionForKey(thread.toString(), PARTITIONS)]?.nextOffset ?? 0n;
  process.stdout.write(
    `${JSON.stringify(
      {
        benchmark: 'agui-live',
        what: 'CPU ms of one POST run (RunAgentInput) on a long thread, response read to its end, showing the whole history or resumed after the previous Last-Event-ID; ours = a handler that read the thread before, baseline = a new handler reading it from offset 0; alternating order per round; ratios per round',
        records: { filler: FILLER + ROUNDS * FILLER_PER_ROUND, threadRecords: (THREAD_ANSWERS + 1 + ROUNDS) * 6, threadPartitionEnd: partitionEnd.toString(), newPerRound: { thread: 6, filler: FILLER_PER_ROUND } },
        firstRequestCpuMs: Number(first.cpuMs.toFixed(3)),
        rounds: ROUNDS,
        wholeHistory: report(modes.whole),
        resumedAfterLastEventId: report(modes.resumed),
        machine: { ...machine(), loadAverageBefore: loadBefore },
      },
      null,
      2,
    )}\n`,
  );
}

await main();
