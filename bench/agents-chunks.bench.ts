// @agdx/agents client hot paths on the embedded MemoryLog:
//  1. chunk stream throughput, buffered writer → log → readAgentMessage → ChunkAssembler (chunks/s),
//     against a baseline that appends the same pre-encoded records straight to the log and reads
//     them back (the transport ceiling: no envelope build, validation, encode or decode);
//  2. single-chunk publish cost (unbuffered writer: one append per chunk, µs per chunk);
//  3. one command through the send builder (µs per send);
//  4. the split: the buffered writer alone over a transport that drops appends, and
//     readAgentMessage + ChunkAssembler alone over records already in the log.
// Run: pnpm exec tsx --conditions=@agdx/source bench/agents-chunks.bench.ts → one JSON object on stdout.
import { AgdxClient, AgentTopic, readAgentMessage } from '@agdx/agents';
import { MemoryLog, type AppendRecord, type AppendRequest, type LogTransport } from '@agdx/transport';
import { AgentEnvelope, AgentId, ChannelId, ChunkAssembler, ConversationId, CorrelationId, encodeEnvelope, encodeHeaderBlock, MintUlid } from '@agdx/wire';
import { median } from './support/stats.js';

const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 3);
const CHUNKS = Number(process.env.AGDX_BENCH_CHUNKS ?? 50_000);
const BATCH = 64;
const body = new TextEncoder().encode('token ');

function loadAverage(): number | undefined {
  // Present on Node; the figures are wall-clock, so a busy machine lowers them.
  const os = (globalThis as { process?: { getBuiltinModule?: (id: string) => { loadavg(): number[] } } }).process?.getBuiltinModule?.('node:os');
  return os === undefined ? undefined : Number(os.loadavg()[0]!.toFixed(2));
}

async function setup(): Promise<{ log: MemoryLog; laser: AgdxClient }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'bench' });
  await laser.bootstrap(1);
  return { log, laser };
}

async function drain(log: MemoryLog, expected: number): Promise<number> {
  const assembler = new ChunkAssembler();
  let offset = 0n;
  let delivered = 0;
  const address = { stream: 'bench', topic: AgentTopic.Streams };
  while (offset < BigInt(expected)) {
    const records = await log.read({ ...address, partition: 0, offset, maxCount: 10_000 });
    for (const r of records) {
      for (const e of assembler.feed(readAgentMessage(r, address).envelope!)) if (e.kind === 'body') delivered++;
      offset = r.offset + 1n;
    }
  }
  return delivered;
}

// CPU seconds of this process: on a machine shared with other work, wall-clock rates drop with the
// load while CPU-time rates stay close to what the code costs.
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function streamRun(): Promise<{ endToEnd: number; writer: number; perCpuSecond: number }> {
  const { log, laser } = await setup();
  const cpu0 = cpuSeconds();
  const w = laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').buffered(BATCH, 1e9);
  const start = performance.now();
  for (let i = 0; i < CHUNKS; i++) await w.write(body);
  await w.finish('stop');
  const written = performance.now();
  const delivered = await drain(log, CHUNKS + 1);
  const end = performance.now();
  const cpu = cpuSeconds() - cpu0;
  if (delivered !== CHUNKS) throw new Error(`assembler delivered ${delivered} of ${CHUNKS}`);
  return { endToEnd: CHUNKS / ((end - start) / 1000), writer: CHUNKS / ((written - start) / 1000), perCpuSecond: CHUNKS / cpu };
}

async function baselineRun(): Promise<{ wall: number; perCpuSecond: number }> {
  const cpu0 = cpuSeconds();
  const log = new MemoryLog();
  await log.ensureStream('bench');
  await log.ensureTopic({ stream: 'bench', topic: AgentTopic.Streams }, { partitions: 1 });
  const conversation = ConversationId.new();
  const source = AgentId.new('writer');
  const channel = MintUlid.mint(ChannelId);
  const correlation = MintUlid.mint(CorrelationId);
  const headers = encodeHeaderBlock({ conversation, source }, 0, { topic: AgentTopic.Streams });
  const payloads = Array.from({ length: BATCH }, (_, i) =>
    encodeEnvelope(AgentEnvelope.chunk(conversation, source, correlation, channel, i, body)),
  );
  const batch: AppendRecord[] = payloads.map((payload) => ({ headers, payload }));
  const key = conversation.toString();
  const start = performance.now();
  for (let i = 0; i < CHUNKS; i += BATCH) await log.append({ stream: 'bench', topic: AgentTopic.Streams, records: batch, routing: { key } });
  let offset = 0n;
  let read = 0;
  while (read < CHUNKS) {
    const records = await log.read({ stream: 'bench', topic: AgentTopic.Streams, partition: 0, offset, maxCount: 10_000 });
    for (const r of records) if (r.payload.length > 0) read++;
    offset += BigInt(records.length);
  }
  return { wall: CHUNKS / ((performance.now() - start) / 1000), perCpuSecond: CHUNKS / (cpuSeconds() - cpu0) };
}

// A transport that accepts and drops every append: the writer's own cost.
const nullTransport = {
  append: async (request: AppendRequest) => ({ partition: 0, baseOffset: 0n, count: request.records.length }),
} as unknown as LogTransport;

async function writerAloneRun(): Promise<number> {
  const laser = AgdxClient.from(nullTransport, { stream: 'bench' });
  const w = laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').buffered(BATCH, 1e9);
  const start = performance.now();
  for (let i = 0; i < CHUNKS; i++) await w.write(body);
  return CHUNKS / ((performance.now() - start) / 1000);
}

async function readerAloneRun(): Promise<number> {
  const { log, laser } = await setup();
  const w = laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').buffered(BATCH, 1e9);
  for (let i = 0; i < CHUNKS; i++) await w.write(body);
  await w.finish('stop');
  const address = { stream: 'bench', topic: AgentTopic.Streams };
  const records = await log.read({ ...address, partition: 0, offset: 0n, maxCount: CHUNKS + 1 });
  const start = performance.now();
  const assembler = new ChunkAssembler();
  for (const r of records) assembler.feed(readAgentMessage(r, address).envelope!);
  return records.length / ((performance.now() - start) / 1000);
}

async function singleChunkRun(count: number): Promise<number> {
  const { laser } = await setup();
  const w = laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
  const start = performance.now();
  for (let i = 0; i < count; i++) await w.write(body);
  return ((performance.now() - start) * 1000) / count;
}

async function commandRun(count: number): Promise<number> {
  const { laser } = await setup();
  const send = laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), ConversationId.new());
  const correlation = MintUlid.mint(CorrelationId);
  const start = performance.now();
  for (let i = 0; i < count; i++) await send.command(correlation, body).withOperation('summarize').send();
  return ((performance.now() - start) * 1000) / count;
}

for (let i = 0; i < 1; i++) {
  // warm-up: let the JIT settle on every path before measuring
  await streamRun();
  await baselineRun();
  await writerAloneRun();
  await readerAloneRun();
}
const endToEnd: number[] = [];
const writer: number[] = [];
const baseline: number[] = [];
const streamCpu: number[] = [];
const baselineCpu: number[] = [];
const single: number[] = [];
const command: number[] = [];
const writerAlone: number[] = [];
const readerAlone: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const s = await streamRun();
  endToEnd.push(s.endToEnd);
  writer.push(s.writer);
  streamCpu.push(s.perCpuSecond);
  const b = await baselineRun();
  baseline.push(b.wall);
  baselineCpu.push(b.perCpuSecond);
  single.push(await singleChunkRun(20_000));
  command.push(await commandRun(20_000));
  writerAlone.push(await writerAloneRun());
  readerAlone.push(await readerAloneRun());
}

const ours = Math.round(median(endToEnd));
const base = Math.round(median(baseline));
console.log(
  JSON.stringify({
    name: 'agents-chunks',
    environment: { node: process.version, platform: `${process.platform}-${process.arch}`, loadAverage1m: loadAverage(), runs: RUNS, chunks: CHUNKS, bufferedMaxChunks: BATCH, chunkBodyBytes: body.length },
    ours: {
      streamChunksPerSec: ours,
      streamChunksPerCpuSec: Math.round(median(streamCpu)),
      writerOnlyChunksPerSec: Math.round(median(writer)),
      writerWithoutTransportChunksPerSec: Math.round(median(writerAlone)),
      readAgentMessageAndAssembleChunksPerSec: Math.round(median(readerAlone)),
      singleChunkPublishMicros: Number(median(single).toFixed(2)),
      commandSendMicros: Number(median(command).toFixed(2)),
    },
    baseline: { rawLogAppendAndReadChunksPerSec: base, rawLogChunksPerCpuSec: Math.round(median(baselineCpu)), note: 'pre-encoded records appended in the same batches and read back, no envelope work' },
    ratio: { streamVsRawLog: Number((ours / base).toFixed(3)), streamVsRawLogCpu: Number((median(streamCpu) / median(baselineCpu)).toFixed(3)) },
    target: { streamChunksPerSec: 200_000, met: ours >= 200_000 },
  }),
);
