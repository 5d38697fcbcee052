import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AgdxClient, type AgentHandle } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { ConversationId } from '@agdx/wire';
import { instrument, MetricName, renderTraceTree } from '@agdx/otel';
import { askPlanner, spawnFabric } from './support/fabric.js';
import { counterSum, histogramCount, memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

let sdk: MemorySdk | undefined;
let agents: AgentHandle[] = [];

afterEach(async () => {
  await Promise.all(agents.map((a) => a.shutdown()));
  agents = [];
  await sdk?.shutdown();
  sdk = undefined;
});

const handleOf = (spans: ReadableSpan[], agent: string) => spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === agent);
const parentOf = (spans: ReadableSpan[], span: ReadableSpan) => spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
function ancestors(spans: ReadableSpan[], span: ReadableSpan): ReadableSpan[] {
  const chain: ReadableSpan[] = [];
  for (let at = parentOf(spans, span); at !== undefined && chain.length < 100; at = parentOf(spans, at)) chain.push(at);
  return chain;
}

async function runDemo(): Promise<{ spans: ReadableSpan[]; conversation: ConversationId; answer: string; telemetry: ReturnType<typeof instrument> }> {
  sdk = memorySdk();
  const client = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
  const telemetry = instrument(client, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
  await client.bootstrap(2);
  agents = await spawnFabric(client);
  const conversation = ConversationId.new();
  const answer = await askPlanner(client, conversation);
  const memory = sdk;
  // The planner's handle span ends just after its answer is appended.
  await until(() => memory.spans().filter((s) => s.kind === SpanKind.CONSUMER).length >= 3, 'three handle spans');
  await until(() => telemetry.telemetry.runningScopes === 0, 'every scope to end');
  return { spans: memory.spans(), conversation, answer, telemetry };
}

describe('the demo scenario on MemoryLog', () => {
  it('is one connected trace across planner, worker and approver', async () => {
    const { spans, conversation, answer } = await runDemo();
    expect(answer).toBe('summary, approved');
    const inSession = spans.filter((s) => s.attributes['gen_ai.conversation.id'] === conversation.toString());
    expect(inSession.length).toBeGreaterThan(8);
    const traceIds = new Set(inSession.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    // Exactly one root: the operator's request.
    const roots = inSession.filter((s) => parentOf(spans, s) === undefined);
    expect(roots.map((r) => r.name)).toEqual(['invoke_agent planner']);

    const planner = handleOf(spans, 'planner')!;
    const worker = handleOf(spans, 'worker')!;
    const approver = handleOf(spans, 'approver')!;
    for (const handle of [planner, worker, approver]) {
      // Each handle continues the send that wrote its record, and links to it.
      const send = parentOf(spans, handle)!;
      expect(send.kind).toBe(SpanKind.PRODUCER);
      expect(handle.links.map((l) => l.context.spanId)).toEqual([send.spanContext().spanId]);
      expect(handle.attributes['messaging.system']).toBe('iggy');
      expect(handle.attributes['messaging.destination.partition.id']).toMatch(/^\d+$/);
      expect(handle.attributes['messaging.message.id']).toBe(send.attributes['messaging.message.id']);
      expect(handle.attributes['agdx.outcome']).toBe('handled');
    }
    expect(ancestors(spans, worker)).toContain(planner);
    expect(ancestors(spans, approver)).toContain(worker);
    const wait = ancestors(spans, approver).find((s) => s.name === 'human_input approver');
    expect(wait?.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(spans, wait!)).toBe(worker);
    const delegation = parentOf(spans, parentOf(spans, worker)!)!;
    expect(delegation.name).toBe('invoke_agent worker');
    expect(delegation.attributes['gen_ai.operation.name']).toBe('invoke_agent');
    expect(parentOf(spans, delegation)).toBe(planner);
    expect(planner.attributes['gen_ai.operation.name']).toBe('plan');

    // The tool result and the streams are sends under the worker's handle.
    const tool = inSession.find((s) => s.attributes['gen_ai.tool.name'] === 'search_incidents')!;
    expect(tool.attributes['gen_ai.operation.name']).toBe('execute_tool');
    expect(ancestors(spans, tool)).toContain(worker);
    const answered = inSession.filter((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'approver');
    expect(answered.length).toBe(1);
    expect(parentOf(spans, answered[0]!)).toBe(approver);
    expect(inSession.every((s) => s.status.code !== SpanStatusCode.ERROR)).toBe(true);

    // A chunk stream is one span with an event per append, not one span per chunk.
    const chat = inSession.filter((s) => s.name === 'chat');
    expect(chat.length).toBe(1);
    expect(parentOf(spans, chat[0]!)).toBe(worker);
    expect(chat[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop'],
      'agdx.chunks': 2,
    });
    expect(chat[0]!.events.map((e) => e.name)).toEqual(['chunks appended', 'chunks appended']);
    expect(inSession.filter((s) => s.name === 'stream reasoning').length).toBe(1);
  });

  it('counts records, handler time and reply latency', async () => {
    await runDemo();
    const metrics = await sdk!.metrics();
    expect(counterSum(metrics.get(MetricName.sent))).toBeGreaterThanOrEqual(6);
    const handled = metrics.get(MetricName.handled);
    for (const agent of ['planner', 'worker', 'approver']) {
      expect(counterSum(handled, (a) => a['gen_ai.agent.id'] === agent && a['agdx.outcome'] === 'handled')).toBeGreaterThanOrEqual(1);
    }
    expect(histogramCount(metrics.get(MetricName.handlerDuration))).toBe(counterSum(handled));
    // operator → planner, planner → worker, worker → approver.
    expect(histogramCount(metrics.get(MetricName.replyLatency))).toBe(3);
    expect(counterSum(metrics.get(MetricName.chunks))).toBe(4);
    const tokens = metrics.get(MetricName.tokenUsage);
    const sumOf = (type: string) => tokens?.dataPoints.filter((p) => p.attributes['gen_ai.token.type'] === type).reduce((n, p) => n + (p.value as { sum: number }).sum, 0);
    expect(sumOf('input')).toBe(12);
    expect(sumOf('output')).toBe(5);
  });

  it('renders the trace as a text tree', async () => {
    const { spans, conversation } = await runDemo();
    const tree = renderTraceTree(spans.filter((s) => s.attributes['gen_ai.conversation.id'] === conversation.toString()), { durations: false });
    const lines = tree.split('\n');
    expect(lines[0]).toMatch(/^trace [0-9a-f]{32}$/);
    expect(lines[1]).toBe('└─ invoke_agent planner  [client agent=planner]');
    expect(tree).toContain('process agent.sessions  [consumer agent=worker]');
    expect(tree).toContain('human_input approver  [client agent=worker]');
    expect(tree).toContain('process agent.human_input  [consumer agent=approver]');
  });
});
