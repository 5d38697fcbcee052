// What @agdx/otel costs on an agent round trip on MemoryLog: a requester sends an AGDX command
// with `laser.request` to an echo agent built with Agent.builder(), which answers with
// ctx.respond. Ours: the same exchange on a client instrumented with `instrument(laser)`,
// (a) with the global no-op providers (instrumentation installed, no SDK), (b) with the SDK's
// BasicTracerProvider and InMemorySpanExporter (cleared between batches). A third row installs a
// bare hook that ignores every event (each method returns undefined): what the hook plumbing in
// @agdx/agents costs by itself. A fourth row times a second uninstrumented client against the
// first (an A/A comparison): its spread is the noise floor of this run, what a ratio must clear
// to mean anything. Baseline, same run: the identical exchange on an uninstrumented client.
//
// Each pair runs in alternating rounds and is reported as round trips per CPU second of this
// process (process.cpuUsage, user + system), min/median/max over the rounds, with the ratio
// ours / baseline per round; the load average is printed before and after. Many short batches
// (AGDX_BENCH_ROUNDS, default 61, of AGDX_BENCH_BATCH_MS, default 20 ms of CPU per side) keep both
// sides of a round under nearly the same machine load; the median ratio over them is the figure.
//
// Finally the hook's own calls of one round trip (a wait, two sends, a handle), replayed with
// no-op providers on the events a real round trip produced, are timed in a tight loop: their CPU
// per round trip, divided by the uninstrumented round trip's CPU, is the direct share, a figure
// the machine's load moves far less than an end-to-end ratio. Prints one JSON object.
import { loadavg } from 'node:os';
import { AgdxClient, type AgdxTelemetry, type HandleEvent, type SendEvent, type WaitEvent } from '@agdx/agents';
import { instrument } from '@agdx/otel';
import { MemoryLog } from '@agdx/transport';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { compareAlternating, sinkBit, type Contender } from './support/alternating.js';
import { echoRoundTrip } from './support/echo-round-trip.js';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const STREAM = 'bench';
const ROUNDS = Number(process.env.AGDX_BENCH_ROUNDS ?? 61);
const BATCH_CPU_MS = Number(process.env.AGDX_BENCH_BATCH_MS ?? 20);
const WARMUP = 3_000;

async function roundTrip(setup: (laser: AgdxClient) => void): Promise<{ contender: Contender; stop: () => Promise<void> }> {
  const laser = AgdxClient.from(new MemoryLog(), { stream: STREAM });
  setup(laser);
  await laser.bootstrap(1);
  const { once: run, stopAgent } = await echoRoundTrip(laser);
  return {
    contender: { run, async: true },
    stop: async () => {
      await stopAgent();
      await laser.close();
    },
  };
}

// A hook that takes no event: the agents runtime's own telemetry call sites, and nothing else.
const ignoring: AgdxTelemetry = {
  onSend: () => undefined,
  onChunkStream: () => undefined,
  onHandle: () => undefined,
  onWait: () => undefined,
  onDeadLetter: () => undefined,
};

/** CPU nanoseconds of the no-op hook calls one round trip makes, median over batches; and how many returned a span. */
async function hookCallsPerRoundTrip(): Promise<{ cpuNs: number; spansHanded: number }> {
  const laser = AgdxClient.from(new MemoryLog(), { stream: STREAM });
  const { telemetry } = instrument(laser);
  const sends: SendEvent[] = [];
  const handles: HandleEvent[] = [];
  const waits: WaitEvent[] = [];
  laser.instrument({
    ...ignoring,
    onSend: (event) => (sends.push(event), telemetry.onSend(event)),
    onHandle: (event) => (handles.push(event), telemetry.onHandle(event)),
    onWait: (event) => (waits.push(event), telemetry.onWait(event)),
  });
  await laser.bootstrap(1);
  const { once, stopAgent } = await echoRoundTrip(laser);
  await once();
  await stopAgent();
  await laser.close();
  const [request, reply] = sends;
  const [handle] = handles;
  const [wait] = waits;
  if (request === undefined || reply === undefined || handle === undefined || wait === undefined) throw new Error('a round trip made fewer hook calls than expected');
  let handed = 0;
  const replay = (): void => {
    if (telemetry.onWait(wait) !== undefined) handed++;
    if (telemetry.onSend(request) !== undefined) handed++;
    if (telemetry.onHandle(handle) !== undefined) handed++;
    if (telemetry.onSend(reply) !== undefined) handed++;
  };
  const perBatch = 100_000;
  for (let i = 0; i < perBatch; i++) replay();
  const nsPerReplay: number[] = [];
  for (let batch = 0; batch < 15; batch++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < perBatch; i++) replay();
    const cpu = process.cpuUsage(c0);
    nsPerReplay.push(((cpu.user + cpu.system) * 1000) / perBatch);
  }
  return { cpuNs: Math.round(median(nsPerReplay)), spansHanded: handed };
}

const loadBefore = loadavg();
const off = await roundTrip(() => undefined);
const offAgain = await roundTrip(() => undefined);
const hookOnly = await roundTrip((laser) => laser.instrument(ignoring));
const noop = await roundTrip((laser) => instrument(laser));
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const sdk = await roundTrip((laser) => instrument(laser, { tracerProvider }));
// Finished spans would pile up over the run: drop them every 4,096 round trips.
let sdkRuns = 0;
const sdkContender: Contender = {
  async: true,
  run: async (i) => {
    if (++sdkRuns % 4096 === 0) exporter.reset();
    await sdk.contender.run(i);
  },
};

// Warm every path up first, so calibration and the first rounds do not time the JIT.
for (const side of [off.contender, offAgain.contender, hookOnly.contender, noop.contender, sdkContender, off.contender]) for (let i = 0; i < WARMUP; i++) await side.run(i);

const options = { rounds: ROUNDS, batchCpuMs: BATCH_CPU_MS };
const noopVsOff = await compareAlternating(noop.contender, off.contender, options);
const hookOnlyVsOff = await compareAlternating(hookOnly.contender, off.contender, options);
const offVsOff = await compareAlternating(offAgain.contender, off.contender, options);
const sdkVsOff = await compareAlternating(sdkContender, off.contender, options);
const hookCalls = await hookCallsPerRoundTrip();
const offCpuNsPerRoundTrip = 1e9 / median([noopVsOff.baselinePerCpuSecond.median, hookOnlyVsOff.baselinePerCpuSecond.median, offVsOff.baselinePerCpuSecond.median]);
await Promise.all([off.stop(), offAgain.stop(), hookOnly.stop(), noop.stop(), sdk.stop()]);
await tracerProvider.shutdown();

process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'otel-overhead',
      unit: 'agent round trips (request → handler → correlated reply) per CPU second of this process',
      machine: machine(),
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
      rounds: ROUNDS,
      batchCpuMs: BATCH_CPU_MS,
      noopProviderVsUninstrumented: noopVsOff,
      ignoringHookVsUninstrumented: hookOnlyVsOff,
      uninstrumentedVsUninstrumented: offVsOff,
      inMemorySdkVsUninstrumented: sdkVsOff,
      overheadNoopPercent: Number(((1 / noopVsOff.ratio.median - 1) * 100).toFixed(1)),
      overheadHookOnlyPercent: Number(((1 / hookOnlyVsOff.ratio.median - 1) * 100).toFixed(1)),
      noopHookCallsPerRoundTrip: {
        what: 'CPU ns of onWait + 2 × onSend + onHandle with no-op providers, median of 15 batches of 100,000 replays; share = that ÷ the median uninstrumented round trip CPU of the comparisons above',
        cpuNs: hookCalls.cpuNs,
        spansHanded: hookCalls.spansHanded,
        uninstrumentedRoundTripCpuNs: Math.round(offCpuNsPerRoundTrip),
        sharePercent: Number(((hookCalls.cpuNs / offCpuNsPerRoundTrip) * 100).toFixed(2)),
      },
      overheadSdkPercent: Number(((1 / sdkVsOff.ratio.median - 1) * 100).toFixed(1)),
      sink: sinkBit(),
    },
    null,
    2,
  )}\n`,
);
