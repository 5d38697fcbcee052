/**
 * Network faults: clients of @agdx/transport-iggy append and read through a FaultProxy while a
 * seeded schedule delays, silences, cuts, half-closes and refuses connections. Every call must
 * settle (success or a typed error) within its bound; every acknowledged append must be found
 * at its partition and offset afterwards, read directly from the server.
 */
import { startDevServer } from '@agdx/iggy-dev-server';
import { isBrandedError, SeededRandom, summarize, type SampleSummary } from '@agdx/reliability';
import { IggyTransport } from '@agdx/transport-iggy';
import { FaultProxy } from './fault-proxy.js';

/** Settings of a run. */
export interface NetworkRunOptions {
  readonly seed: number;
  readonly protocol: 'vsr' | 'classic';
  /** Stop after this many calls in total... */
  readonly calls: number;
  /** ...or after this long. */
  readonly maxMs: number;
  /** Concurrent clients (each its own transport and connection). */
  readonly clients: number;
  readonly requestTimeoutMs: number;
  /** Calls between two changes of the fault. */
  readonly callsPerPhase: number;
}

/** Figures of a run. */
export interface NetworkRunReport {
  readonly options: NetworkRunOptions;
  readonly calls: number;
  readonly acknowledged: number;
  readonly failed: Record<string, number>;
  readonly untypedErrors: string[];
  /** Calls that took longer than the bound. */
  readonly overBound: number;
  readonly boundMs: number;
  readonly callMs: SampleSummary;
  readonly faults: Record<string, number>;
  readonly phases: Record<string, number>;
  readonly reconnects: number;
  /** Acknowledged appends not found at their position afterwards (must be 0). */
  readonly acknowledgedMissing: number;
  /** Appends that failed at the client but were stored (the unknown outcome of a cut). */
  readonly storedButFailed: number;
  /** A clean append through the proxy after the faults succeeded. */
  readonly recovered: boolean;
  readonly elapsedMs: number;
}

const STREAM = 'net';
const TOPIC = 'faults';
const PARTITIONS = 3;
const PHASES = ['clean', 'delay-small', 'delay-over-timeout', 'silent', 'cut', 'half-close', 'refuse'] as const;
type Phase = (typeof PHASES)[number];

function applyPhase(proxy: FaultProxy, phase: Phase, timeoutMs: number): void {
  proxy.delayMs = phase === 'delay-small' ? 20 : phase === 'delay-over-timeout' ? timeoutMs + 100 : 0;
  proxy.silent = phase === 'silent';
  proxy.refuse = phase === 'refuse';
  if (phase === 'cut') proxy.cut();
  if (phase === 'half-close') proxy.halfClose();
}

/** Runs the scenario against an in-process dev server (memory). */
export async function runNetworkFaults(options: NetworkRunOptions): Promise<NetworkRunReport> {
  const started = performance.now();
  await using server = await startDevServer();
  const proxy = await FaultProxy.start(() => ({ host: server.host, port: server.port }));
  const direct = await IggyTransport.connect(server.url, { protocol: options.protocol });
  await direct.ensureStream(STREAM);
  await direct.ensureTopic({ stream: STREAM, topic: TOPIC }, { partitions: PARTITIONS });
  const connectTimeoutMs = options.requestTimeoutMs;
  const clients = await Promise.all(
    Array.from({ length: options.clients }, () =>
      IggyTransport.connect({
        host: '127.0.0.1',
        port: proxy.port,
        protocol: options.protocol,
        requestTimeoutMs: options.requestTimeoutMs,
        connectTimeoutMs,
        heartbeatIntervalMs: 0,
        reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 },
      }),
    ),
  );
  // A call may wait for a reconnection cycle before its own timeout starts to matter.
  const boundMs = options.requestTimeoutMs + connectTimeoutMs + 1_000;
  const random = new SeededRandom(options.seed);
  const acked: { partition: number; offset: bigint; payload: string }[] = [];
  const failedPayloads = new Set<string>();
  const failed: Record<string, number> = {};
  const untyped: string[] = [];
  const phases: Record<string, number> = {};
  const durations: number[] = [];
  let overBound = 0;
  let calls = 0;
  let phaseCalls = 0;
  const enc = new TextEncoder();

  const one = async (client: IggyTransport, lane: number): Promise<void> => {
    const i = calls++;
    const payload = `call-${lane}-${i}`;
    const t0 = performance.now();
    try {
      if (random.chance(0.8)) {
        const r = await client.append({ stream: STREAM, topic: TOPIC, routing: { key: payload }, records: [{ payload: enc.encode(payload) }] });
        acked.push({ partition: r.partition, offset: r.baseOffset, payload });
      } else {
        await client.read({ stream: STREAM, topic: TOPIC, partition: random.int(PARTITIONS), offset: 0n, maxCount: 10 });
      }
    } catch (error) {
      failedPayloads.add(payload);
      if (isBrandedError(error)) {
        const kind = (error as { kind: string }).kind;
        failed[kind] = (failed[kind] ?? 0) + 1;
      } else if (untyped.length < 5) untyped.push(String(error));
      else untyped.length += 0;
    }
    const took = performance.now() - t0;
    durations.push(took);
    if (took > boundMs) overBound += 1;
  };

  let phase: Phase = 'clean';
  while (calls < options.calls && performance.now() - started < options.maxMs) {
    if (phaseCalls >= options.callsPerPhase) {
      phaseCalls = 0;
      phase = random.pick(PHASES);
      phases[phase] = (phases[phase] ?? 0) + 1;
      applyPhase(proxy, phase, options.requestTimeoutMs);
    }
    phaseCalls += options.clients;
    await Promise.all(clients.map((c, lane) => one(c, lane)));
  }

  applyPhase(proxy, 'clean', options.requestTimeoutMs);
  let recovered = true;
  for (const client of clients) {
    try {
      const r = await client.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload: enc.encode('after the faults') }] });
      acked.push({ partition: r.partition, offset: r.baseOffset, payload: 'after the faults' });
    } catch {
      // One retry: the first call after the faults may meet a connection the last fault broke.
      try {
        const r = await client.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload: enc.encode('after the faults') }] });
        acked.push({ partition: r.partition, offset: r.baseOffset, payload: 'after the faults' });
      } catch {
        recovered = false;
      }
    }
  }

  // Read everything back directly, bypassing the proxy.
  const stored = new Map<string, string>();
  const dec = new TextDecoder();
  for (let p = 0; p < PARTITIONS; p++) {
    for (let offset = 0n; ; ) {
      const batch = await direct.read({ stream: STREAM, topic: TOPIC, partition: p, offset, maxCount: 1000 });
      if (batch.length === 0) break;
      for (const r of batch) stored.set(`${p}:${r.offset}`, dec.decode(r.payload));
      offset = batch[batch.length - 1]!.offset + 1n;
    }
  }
  const acknowledgedMissing = acked.filter((a) => stored.get(`${a.partition}:${a.offset}`) !== a.payload).length;
  const storedPayloads = new Set(stored.values());
  const storedButFailed = [...failedPayloads].filter((p) => storedPayloads.has(p)).length;
  const reconnects = clients.reduce((n, c) => n + c.reconnects, 0);
  await Promise.all(clients.map((c) => c.close()));
  await direct.close();
  await proxy.close();
  return {
    options,
    calls,
    acknowledged: acked.length,
    failed,
    untypedErrors: untyped,
    overBound,
    boundMs,
    callMs: summarize(durations),
    faults: { ...proxy.faults },
    phases,
    reconnects,
    acknowledgedMissing,
    storedButFailed,
    recovered,
    elapsedMs: performance.now() - started,
  };
}
