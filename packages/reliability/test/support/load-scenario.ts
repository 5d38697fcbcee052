/**
 * Load: N agents, each serving M concurrent sessions, answer every command with a streamed
 * answer (K chunks, then a response) for a bounded time. Reports throughput, round-trip latency
 * percentiles, chunks written, and memory over the run (peak, and whether the live heap is flat).
 */
import { AgdxClient, Agent, AgentTopic, type AgentHandle } from '@agdx/agents';
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { summarize, type SampleSummary } from '@agdx/reliability';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { MemorySampler, type MemoryReport } from './memory-sampler.js';
import { kill, processCpuMicros, startChild } from './processes.js';

/** Settings of a run. */
export interface LoadRunOptions {
  readonly transport: 'memory' | 'iggy';
  readonly agents: number;
  readonly sessionsPerAgent: number;
  readonly chunksPerAnswer: number;
  readonly durationMs: number;
  readonly partitions: number;
  readonly sampleEveryMs: number;
  /**
   * Run the dev server in a child process (`iggy` only), so the sampled heap is the clients' and
   * agents' alone; in process the server's in-memory log grows with every record.
   */
  readonly serverInChild?: boolean | undefined;
  /** Force a full collection before each memory sample (default true). */
  readonly forceGc?: boolean | undefined;
  /** The agents' pipelined answers (default true, the runtime's default); false awaits every answer. */
  readonly pipelining?: boolean | undefined;
  /**
   * `iggy` only: shared connections of each transport (the requester's and every agent's; group
   * members always have their own). Default 1, the transport's default. VSR carries one request
   * at a time per connection, so with more an agent's reads no longer queue behind its answer
   * appends, nor the requester's reply reads behind its command appends.
   */
  readonly connections?: number | undefined;
}

/** Figures of a run. */
export interface LoadRunReport {
  readonly options: LoadRunOptions;
  readonly node: string;
  readonly requests: number;
  readonly errors: number;
  readonly errorSamples: string[];
  readonly requestsPerSecond: number;
  readonly chunksPerSecond: number;
  readonly latencyMs: SampleSummary;
  readonly memory: MemoryReport;
  /**
   * Event-loop responsiveness: a 100 ms interval timer, how often it fired against how often it
   * should have, and its worst lateness. Timeouts and linger timers wait as long.
   */
  readonly timer: { readonly expectedTicks: number; readonly ticks: number; readonly maxLagMs: number };
  readonly elapsedMs: number;
  /**
   * CPU time (user + system) of the dev server's child process during the load phase divided by
   * the requests answered, in µs; undefined without a child or where `/proc` is missing.
   */
  readonly serverCpuMicrosPerRequest?: number | undefined;
  /**
   * CPU time (user + system) of this process (the requester and the agents) during the load
   * phase divided by the requests answered, in µs: without startup, compilation and teardown.
   */
  readonly clientCpuMicrosPerRequest?: number | undefined;
  /**
   * Iggy only: requests the clients and agents wrote to the server during the load phase, by
   * command, divided by the requests answered (what one answered request costs on the wire),
   * and their total per answered request.
   */
  readonly wireRequestsPerRequest?: { readonly total: number; readonly byCommand: Readonly<Record<string, number>> } | undefined;
  /**
   * Iggy only: the same split by who wrote them: the requester's transport, and the agents'
   * transports (their reads of the commands, answer appends, commits and group syncs) together.
   */
  readonly wireRequestsPerRequestBySide?: {
    readonly requester: { readonly total: number; readonly byCommand: Readonly<Record<string, number>> } | undefined;
    readonly agents: { readonly total: number; readonly byCommand: Readonly<Record<string, number>> } | undefined;
  } | undefined;
}

/** What the Iggy transport counts; the memory log has no wire. */
interface CountsRequests {
  readonly requestsWritten: Readonly<Record<string, number>>;
}

function countsRequests(t: LogTransport): t is LogTransport & CountsRequests {
  return 'requestsWritten' in t;
}

/** The requests every transport has written so far, by command, summed. */
function wireCounts(transports: readonly LogTransport[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const t of transports) {
    if (!countsRequests(t)) continue;
    for (const [name, n] of Object.entries(t.requestsWritten)) totals[name] = (totals[name] ?? 0) + n;
  }
  return totals;
}

/** `after - before` per command, divided by `answered`, rounded to hundredths. */
function perRequest(before: Record<string, number>, after: Record<string, number>, answered: number): { total: number; byCommand: Record<string, number> } | undefined {
  if (answered === 0 || Object.keys(after).length === 0) return undefined;
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const [name, n] of Object.entries(after)) {
    const sent = n - (before[name] ?? 0);
    if (sent === 0) continue;
    total += sent;
    byCommand[name] = Math.round((sent / answered) * 100) / 100;
  }
  return { total: Math.round((total / answered) * 100) / 100, byCommand };
}

const STREAM = 'load';
const enc = new TextEncoder();

async function openTransport(kind: LoadRunOptions['transport'], url: string | undefined, shared: MemoryLog, connections: number): Promise<LogTransport> {
  if (kind === 'memory' || url === undefined) return shared.connect();
  return IggyTransport.connect(url, { requestTimeoutMs: 10_000, connections });
}

/** Runs the scenario; everything it started is stopped at the end. */
export async function runLoad(options: LoadRunOptions): Promise<LoadRunReport> {
  const started = performance.now();
  const iggy = options.transport === 'iggy';
  const child = iggy && options.serverInChild === true ? (await startChild('./server-main.ts', ['0', '-'], 'URL ')) : undefined;
  const server: DevServer | undefined = iggy && child === undefined ? await startDevServer() : undefined;
  const url = child?.line ?? server?.url;
  const memory = new MemoryLog();
  const transports: LogTransport[] = [];
  const handles: AgentHandle[] = [];
  try {
    const requesterTransport = await openTransport(options.transport, url, memory, options.connections ?? 1);
    transports.push(requesterTransport);
    const requester = AgdxClient.from(requesterTransport, { stream: STREAM });
    await requester.bootstrap(options.partitions);
    for (let a = 0; a < options.agents; a++) {
      const t = await openTransport(options.transport, url, memory, options.connections ?? 1);
      transports.push(t);
      const handle = Agent.builder()
        .id(`agent-${a}`)
        .listenOn(AgentTopic.Commands)
        .respondOn(AgentTopic.Responses)
        .heartbeats(false)
        .followControl(false)
        .pollInterval(20)
        .pipelining(options.pipelining ?? true)
        .handler(async (_message, ctx) => {
          const writer = ctx.stream('chat');
          for (let c = 0; c < options.chunksPerAnswer; c++) await writer.write(enc.encode(`token ${c} `));
          await writer.finish('stop');
          await ctx.respond(enc.encode('done'));
        })
        .build()
        .spawn(AgdxClient.from(t, { stream: STREAM }));
      handles.push(handle);
    }
    await Promise.all(handles.map((h) => h.ready()));

    const sampler = new MemorySampler(options.sampleEveryMs, options.forceGc ?? true);
    let ticks = 0;
    let maxLagMs = 0;
    let lastTick = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      ticks += 1;
      maxLagMs = Math.max(maxLagMs, now - lastTick - 100);
      lastTick = now;
    }, 100);
    const latencies: number[] = [];
    const errorSamples: string[] = [];
    let errors = 0;
    const loadStart = performance.now();
    const serverCpuBefore = processCpuMicros(child?.process.pid);
    const wireBefore = wireCounts(transports);
    // transports[0] is the requester's; the rest are the agents'.
    const requesterWireBefore = wireCounts(transports.slice(0, 1));
    const agentsWireBefore = wireCounts(transports.slice(1));
    const clientCpuBefore = process.cpuUsage();
    const session = async (agent: number, s: number): Promise<void> => {
      const conversation = ConversationId.derive(`load-${agent}-${s}`);
      const target = AgentId.new(`agent-${agent}`);
      while (performance.now() - loadStart < options.durationMs) {
        const t0 = performance.now();
        try {
          const builder = requester.agdx(AgentTopic.Commands, 'load-client', conversation).command(MintUlid.mint(CorrelationId), enc.encode('go')).withTarget(target);
          await requester.request(builder, { replyTopic: AgentTopic.Responses, timeoutMs: 30_000, verifier: null });
          latencies.push(performance.now() - t0);
          sampler.maybeSample();
        } catch (error) {
          errors += 1;
          if (errorSamples.length < 5) errorSamples.push(String(error));
        }
      }
    };
    const lanes: Promise<void>[] = [];
    for (let a = 0; a < options.agents; a++) for (let s = 0; s < options.sessionsPerAgent; s++) lanes.push(session(a, s));
    await Promise.all(lanes);
    const loadMs = performance.now() - loadStart;
    const serverCpuAfter = processCpuMicros(child?.process.pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const wireAfter = wireCounts(transports);
    const requesterWireAfter = wireCounts(transports.slice(0, 1));
    const agentsWireAfter = wireCounts(transports.slice(1));
    clearInterval(ticker);
    maxLagMs = Math.max(maxLagMs, performance.now() - lastTick - 100);
    const memoryReport = sampler.stop();
    await requester.close();
    return {
      options,
      node: process.version,
      requests: latencies.length,
      errors,
      errorSamples,
      requestsPerSecond: Math.round((latencies.length / loadMs) * 1000 * 10) / 10,
      chunksPerSecond: Math.round(((latencies.length * (options.chunksPerAnswer + 1)) / loadMs) * 1000),
      latencyMs: summarize(latencies),
      memory: memoryReport,
      timer: { expectedTicks: Math.floor(loadMs / 100), ticks, maxLagMs: Math.round(maxLagMs) },
      elapsedMs: performance.now() - started,
      serverCpuMicrosPerRequest:
        serverCpuBefore === undefined || serverCpuAfter === undefined || latencies.length === 0 ? undefined : Math.round((serverCpuAfter - serverCpuBefore) / latencies.length),
      wireRequestsPerRequest: perRequest(wireBefore, wireAfter, latencies.length),
      wireRequestsPerRequestBySide: iggy
        ? { requester: perRequest(requesterWireBefore, requesterWireAfter, latencies.length), agents: perRequest(agentsWireBefore, agentsWireAfter, latencies.length) }
        : undefined,
      clientCpuMicrosPerRequest: latencies.length === 0 ? undefined : Math.round((clientCpu.user + clientCpu.system) / latencies.length),
    };
  } finally {
    await Promise.all(handles.map((h) => h.abort().catch(() => undefined)));
    await Promise.all(transports.map((t) => t.close().catch(() => undefined)));
    await server?.close();
    if (child !== undefined) await kill(child.process);
  }
}
