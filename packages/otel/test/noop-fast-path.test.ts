import { afterEach, describe, expect, it } from 'vitest';
import { createNoopMeter, metrics, SpanKind, trace } from '@opentelemetry/api';
import { Agent, AgdxClient, AgentTopic, type AgdxTelemetry, type AgentHandle } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid, type RecordHeaders } from '@agdx/wire';
import { createMetrics, instrument, MetricName, TRACEPARENT_HEADER, TRACESTATE_HEADER, type Instrumentation } from '@agdx/otel';
import { askPlanner, spawnFabric } from './support/fabric.js';
import { counterSum, histogramCount, memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

let sdk: MemorySdk | undefined;
let agents: AgentHandle[] = [];

afterEach(async () => {
  await Promise.all(agents.map((a) => a.shutdown()));
  agents = [];
  // Tests here use the global providers: leave none behind.
  trace.disable();
  metrics.disable();
  await sdk?.shutdown();
  sdk = undefined;
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const FOREIGN = `00-${TRACE}-${SPAN}-01`;
const STREAM = 'demo';
const text = new TextDecoder();

/** A hook that only stamps `pairs` on every send, as a foreign producer would. */
function stamping(pairs: Array<[string, string]>): AgdxTelemetry {
  return {
    onSend: () => ({ headers: pairs, end: () => undefined }),
    onChunkStream: () => ({ headers: pairs, appended: () => undefined, end: () => undefined }),
    onHandle: () => undefined,
    onWait: () => undefined,
    onDeadLetter: () => undefined,
  };
}

/** Which hook calls handed the runtime something (a span) rather than nothing. */
interface Handed {
  send: number;
  handle: number;
  wait: number;
}

/** Wraps an installed hook, counting the calls that returned a span. */
function counting(inner: AgdxTelemetry, handed: Handed): AgdxTelemetry {
  return {
    onSend: (event) => {
      const span = inner.onSend(event);
      if (span !== undefined) handed.send++;
      return span;
    },
    onChunkStream: (event) => inner.onChunkStream(event),
    onHandle: (event) => {
      const span = inner.onHandle(event);
      if (span !== undefined) handed.handle++;
      return span;
    },
    onWait: (event) => {
      const span = inner.onWait(event);
      if (span !== undefined) handed.wait++;
      return span;
    },
    onDeadLetter: (event) => inner.onDeadLetter(event),
  };
}

/** Every record of the demo stream's session and human-input topics, as header blocks. */
async function allHeaders(log: MemoryLog): Promise<RecordHeaders[]> {
  const out: RecordHeaders[] = [];
  for (const topic of [AgentTopic.Sessions, AgentTopic.HumanInput, AgentTopic.Commands, AgentTopic.Responses]) {
    let records;
    try {
      records = await log.read({ stream: STREAM, topic, partition: 0, offset: 0n, maxCount: 10_000 });
    } catch {
      continue; // a topic the scenario never created
    }
    for (const record of records) out.push(record.headers);
  }
  return out;
}

const header = (headers: RecordHeaders, key: string): string | undefined => {
  const value = headers.get(key);
  return value === undefined ? undefined : text.decode(value.value);
};

/** An echo agent answering commands on agent.responses, and one request to it. */
async function echoOn(client: AgdxClient): Promise<(requester?: AgdxClient) => Promise<void>> {
  const echo = Agent.builder()
    .id('echo')
    .listenOn(AgentTopic.Commands)
    .respondOn(AgentTopic.Responses)
    .heartbeats(false)
    .pollInterval(5)
    .handler((message, ctx) => ctx.respond(message.envelope?.body ?? new Uint8Array([1])))
    .spawn(client);
  agents.push(echo);
  await echo.ready();
  const planner = AgentId.new('planner');
  const conversation = ConversationId.new();
  return async (requester = client) => {
    const request = requester.agdx(AgentTopic.Commands, planner, conversation).command(MintUlid.mint(CorrelationId), new Uint8Array([7])).withTarget('echo');
    await requester.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 20_000 });
  };
}

describe('instrumented with the no-op providers', () => {
  it('hands the runtime no span and writes no trace headers for records that carry none', async () => {
    const log = new MemoryLog();
    const client = AgdxClient.from(log, { stream: STREAM });
    const installed: Instrumentation = instrument(client);
    const handed: Handed = { send: 0, handle: 0, wait: 0 };
    client.instrument(counting(installed.telemetry, handed));
    await client.bootstrap(1);
    const roundTrip = await echoOn(client);
    await roundTrip();
    await roundTrip();
    expect(handed).toEqual({ send: 0, handle: 0, wait: 0 });
    const headers = await allHeaders(log);
    expect(headers.length).toBeGreaterThanOrEqual(4);
    for (const block of headers) expect(block.has(TRACEPARENT_HEADER)).toBe(false);
    expect(installed.telemetry.runningScopes).toBe(0);
  });

  it('passes a foreign trace context on through planner, worker and approver unchanged', async () => {
    const log = new MemoryLog();
    const client = AgdxClient.from(log, { stream: STREAM });
    const installed = instrument(client);
    await client.bootstrap(1);
    agents = await spawnFabric(client);
    const operator = AgdxClient.from(log, { stream: STREAM, telemetry: stamping([[TRACEPARENT_HEADER, FOREIGN], [TRACESTATE_HEADER, 'vendor=abc']]) });
    const conversation = ConversationId.new();
    expect(await askPlanner(operator, conversation)).toBe('summary, approved');
    await until(() => installed.telemetry.runningScopes === 0, 'every scope to end');

    const inSession = await allHeaders(log);
    // The operator's request, the planner's request and answer, the worker's chunks, tool answer,
    // prompt and answer, the approver's decision: every one continues the operator's trace, and a
    // no-op tracer makes no span of its own, so the parent span id is handed on too.
    expect(inSession.length).toBeGreaterThanOrEqual(8);
    for (const block of inSession) {
      expect(header(block, TRACEPARENT_HEADER)).toBe(FOREIGN);
      expect(header(block, TRACESTATE_HEADER)).toBe('vendor=abc');
    }
  });

  it('records spans once an SDK is registered globally after instrument()', async () => {
    const log = new MemoryLog();
    const client = AgdxClient.from(log, { stream: STREAM });
    instrument(client);
    await client.bootstrap(1);
    const roundTrip = await echoOn(client);
    await roundTrip();
    expect((await allHeaders(log)).some((h) => h.has(TRACEPARENT_HEADER))).toBe(false);

    sdk = memorySdk();
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    await roundTrip();
    const memory = sdk;
    await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER), 'the handle span');
    const spans = memory.spans();
    const wait = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(wait.name).toBe('invoke_agent echo');
    expect(handle.spanContext().traceId).toBe(wait.spanContext().traceId);
    expect(spans.filter((s) => s.kind === SpanKind.PRODUCER)).toHaveLength(2);
    expect((await allHeaders(log)).filter((h) => h.has(TRACEPARENT_HEADER))).toHaveLength(2);
  });

  it('still counts the metrics when only a meter provider is given', async () => {
    sdk = memorySdk();
    const log = new MemoryLog();
    const client = AgdxClient.from(log, { stream: STREAM });
    instrument(client, { meterProvider: sdk.meterProvider });
    await client.bootstrap(1);
    const roundTrip = await echoOn(client);
    await roundTrip();
    const memory = sdk;
    let measured = await memory.metrics();
    for (let round = 0; round < 400 && counterSum(measured.get(MetricName.handled)) < 1; round++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      measured = await memory.metrics();
    }
    expect(counterSum(measured.get(MetricName.sent))).toBe(2);
    expect(counterSum(measured.get(MetricName.handled))).toBe(1);
    expect(histogramCount(measured.get(MetricName.handlerDuration))).toBe(1);
    expect(histogramCount(measured.get(MetricName.replyLatency))).toBe(1);
    expect(memory.spans()).toHaveLength(0);
    expect((await allHeaders(log)).some((h) => h.has(TRACEPARENT_HEADER))).toBe(false);
  });
});

describe('createMetrics', () => {
  it('tells a no-op meter from a measuring one', () => {
    expect(createMetrics(createNoopMeter()).measuring).toBe(false);
    expect(createMetrics(metrics.getMeterProvider().getMeter('x')).measuring).toBe(false);
    const memory = memorySdk();
    expect(createMetrics(memory.meterProvider.getMeter('x')).measuring).toBe(true);
    void memory.shutdown();
  });
});
