// What the stream's layout declaration check (issue 16: `checkLayoutDeclaration` of @agdx/agents,
// run by every session read, AG-UI replay, A2A GetTask and `agdx sessions`) costs a reader, on
// the embedded MemoryLog and on the dev server (another process, over loopback TCP), at two lane
// sizes. In alternating rounds, per CPU second of this process:
//   ours     = one `checkLayoutDeclaration` of a bootstrapped (declared) stream;
//   baseline = one repeated `sessions.get(id)` with nothing new (it includes one such check).
// `checkShareOfGet` = baseline rate / ours rate: the share of a repeated get's CPU the check
// takes. The check's own rate at the small and the large lane shows it does not grow with the log.
// Since `request`/`replies` check too (one check per wait), a second comparison per transport:
//   ours     = one `checkLayoutDeclaration` of a declared stream;
//   baseline = one `laser.request` round trip to an echo agent in this process (it includes one check).
// `checkShareOfRequest` = baseline rate / ours rate: the share of a round trip's CPU the check takes.
// Run: pnpm bench layout-declaration → one JSON object on stdout. AGDX_BENCH_DECL_RECORDS
// (default "10000,100000") sets the lane sizes; AGDX_BENCH_DECL_DISK=0 skips the dev server;
// AGDX_BENCH_RUNS (default 7) sets the rounds.
import { loadavg } from 'node:os';
import { AgdxClient, checkLayoutDeclaration, SESSIONS_TOPIC, SHARED_LAYOUT } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog, type AppendRecord, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { compareAlternating, sinkBit, type Comparison } from './support/alternating.js';
import { startDevServer } from './support/dev-server.js';
import { echoRoundTrip } from './support/echo-round-trip.js';
import { machine } from './support/machine.js';

const SIZES = (process.env.AGDX_BENCH_DECL_RECORDS ?? '10000,100000').split(',').map(Number).filter((n) => n > 0);
const DISK = process.env.AGDX_BENCH_DECL_DISK !== '0';
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
const PARTITIONS = 4;
const SESSIONS = 100;
const planner = AgentId.parse('planner');
const model = AgentId.parse('model');
const body = new TextEncoder().encode('{"prompt":"summarise the ticket"}');

/** A lane of `records` model requests spread over {@link SESSIONS} sessions, on a fresh bootstrapped stream. */
async function lane(transport: LogTransport, stream: string, records: number): Promise<{ laser: AgdxClient; target: ConversationId }> {
  const laser = AgdxClient.from(transport, { stream });
  await laser.bootstrap(PARTITIONS);
  const ids = Array.from({ length: SESSIONS }, (_, i) => ConversationId.derive(`bench-decl-${stream}-${i}`));
  const byId = ids.map((conversation): AppendRecord => {
    const envelope = AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source: planner, target: model, correlation: MintUlid.mint(CorrelationId), operation: 'chat', body });
    const r = envelopeRecord(envelope, ContentType.json, { topic: SESSIONS_TOPIC });
    return { headers: r.headers, payload: r.payload };
  });
  for (let written = 0; written < records; ) {
    const count = Math.min(1000, records - written);
    // one batch per session key, so each session's records stay on its partition
    const id = ids[(written / 1000) % SESSIONS] as ConversationId;
    const record = byId[(written / 1000) % SESSIONS] as AppendRecord;
    await transport.append({ stream, topic: SESSIONS_TOPIC, records: Array.from({ length: count }, () => record), routing: { key: id.toString() }, payloadsImmutable: true });
    written += count;
  }
  return { laser, target: ids[0] as ConversationId };
}

interface SizeResult {
  readonly records: number;
  readonly comparison: Comparison;
  /** baseline rate / ours rate, per round: the check's share of a repeated get. */
  readonly checkShareOfGet: { readonly min: number; readonly median: number; readonly max: number };
}

async function measure(transport: LogTransport, records: number): Promise<SizeResult> {
  const stream = `decl-${records}`;
  const { laser, target } = await lane(transport, stream, records);
  const reads = sessions(laser);
  // the first get folds the whole lane; the ones measured find nothing new
  if ((await reads.get(target)) === undefined) throw new Error('the target session is missing');
  const comparison = await compareAlternating(
    { run: () => checkLayoutDeclaration(transport, stream, SHARED_LAYOUT), async: true },
    { run: () => reads.get(target), async: true },
    { rounds: ROUNDS, batchCpuMs: 100 },
  );
  return { records, comparison, checkShareOfGet: shareOf(comparison) };
}

/** min / median / max of baseline rate / ours rate over the rounds: the check's share of the baseline's CPU. */
function shareOf(comparison: Comparison): { readonly min: number; readonly median: number; readonly max: number } {
  const shares = comparison.ratioPerRound.map((r) => 1 / r).sort((a, b) => a - b);
  const f = (v: number): number => Number(v.toFixed(3));
  return { min: f(shares[0] ?? 0), median: f(shares[shares.length >> 1] ?? 0), max: f(shares.at(-1) ?? 0) };
}

interface RequestResult {
  readonly comparison: Comparison;
  /** baseline rate / ours rate, per round: the check's share of a request round trip. */
  readonly checkShareOfRequest: { readonly min: number; readonly median: number; readonly max: number };
}

async function measureRequest(transport: LogTransport): Promise<RequestResult> {
  const stream = 'decl-request';
  const laser = AgdxClient.from(transport, { stream });
  await laser.bootstrap(PARTITIONS);
  const { once, stopAgent } = await echoRoundTrip(laser);
  try {
    const comparison = await compareAlternating(
      { run: () => checkLayoutDeclaration(transport, stream, SHARED_LAYOUT), async: true },
      { run: once, async: true },
      { rounds: ROUNDS, batchCpuMs: 100 },
    );
    return { comparison, checkShareOfRequest: shareOf(comparison) };
  } finally {
    await stopAgent();
    await laser.close();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const memory: SizeResult[] = [];
  const log = new MemoryLog();
  for (const size of SIZES) memory.push(await measure(log, size));
  const memoryRequest = await measureRequest(log);
  const disk: SizeResult[] = [];
  let diskRequest: RequestResult | undefined;
  if (DISK) {
    const server = await startDevServer();
    const transport = await IggyTransport.connect(`iggy://iggy:iggy@127.0.0.1:${server.port}`);
    try {
      for (const size of SIZES) disk.push(await measure(transport, size));
      diskRequest = await measureRequest(transport);
    } finally {
      await transport.close();
      await server.stop();
    }
  }
  process.stdout.write(
    `${JSON.stringify({
      bench: 'layout-declaration',
      what: 'checkLayoutDeclaration (ours) against a repeated sessions.get with nothing new, and against one laser.request round trip (baselines), per CPU second of this process, alternating rounds',
      rounds: ROUNDS,
      memoryLog: memory,
      devServer: disk,
      request: { memoryLog: memoryRequest, devServer: diskRequest },
      loadAverage: { before: loadBefore, after: loadavg() },
      machine: machine(),
      sink: sinkBit(),
    })}\n`,
  );
}

await main();
