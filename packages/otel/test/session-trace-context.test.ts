/**
 * Session turn appends carry W3C trace context: the record a `session append` span writes names
 * that span, so a reader of the turns or an agent handling them continues the trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { Agent, AgdxClient, AgentTopic, type AgentHandle } from '@agdx/agents';
import { instrument, readTraceHeaders, TRACEPARENT_HEADER } from '@agdx/otel';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (let next = cleanups.pop(); next !== undefined; next = cleanups.pop()) await next();
});

async function instrumented(): Promise<{ laser: AgdxClient; memory: MemorySdk }> {
  const memory = memorySdk();
  cleanups.push(() => memory.shutdown());
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
  await sessions(laser).bootstrap(2);
  instrument(laser, { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
  return { laser, memory };
}

describe('session appends carry trace context', () => {
  it('the turn record names its session append span; a reader and a handling agent continue that trace', async () => {
    const { laser, memory } = await instrumented();
    const session = sessions(laser).create('traced-turns');
    const topic = session.config.topicFor('instruction');
    const handled: string[] = [];
    const reader: AgentHandle = Agent.builder()
      .id(AgentId.new('turn-reader'))
      .listenOn(topic)
      .heartbeats(false)
      .pollInterval(5)
      .handler({ handle: async (message) => void handled.push(new TextDecoder().decode(message.payload)) })
      .build()
      .spawn(laser);
    cleanups.push(() => reader.shutdown());
    await reader.ready();

    await session.append('instruction', 'summarise incident 42');
    const append = memory.spans().find((s) => s.name === 'session append')!;
    const [turn] = await session.turns();
    const carried = readTraceHeaders(turn!.message.headers);
    expect(carried?.traceId).toBe(append.spanContext().traceId);
    expect(carried?.spanId).toBe(append.spanContext().spanId);

    await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'turn-reader'), 'the reader agent’s handle span');
    expect(handled).toEqual(['summarise incident 42']);
    const handle = memory.spans().find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'turn-reader')!;
    expect(handle.parentSpanContext?.spanId).toBe(append.spanContext().spanId);
    expect(handle.spanContext().traceId).toBe(append.spanContext().traceId);
  });

  it('without a context manager, an append a handler makes in its session is a child of its handle span', async () => {
    const { laser, memory } = await instrumented();
    const conversation = ConversationId.new();
    const worker: AgentHandle = Agent.builder()
      .id(AgentId.new('note-taker'))
      .listenOn(AgentTopic.Sessions)
      .heartbeats(false)
      .pollInterval(5)
      .handler({
        handle: async (message, ctx) => {
          if (message.envelope?.kind !== 'command') return;
          await sessions(ctx.client).open(ctx.conversation).append('model.response', 'noted');
        },
      })
      .build()
      .spawn(laser);
    cleanups.push(() => worker.shutdown());
    await worker.ready();
    await laser.agdx(AgentTopic.Sessions, 'operator', conversation).command(MintUlid.mint(CorrelationId), new TextEncoder().encode('take a note')).send();
    const handleSpan = () => memory.spans().find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'note-taker');
    await until(() => handleSpan() !== undefined, 'the handler to end');
    const handle = handleSpan()!;
    const append = memory.spans().find((s) => s.name === 'session append')!;
    expect(append.parentSpanContext?.spanId).toBe(handle.spanContext().spanId);
    const [turn] = await sessions(laser).open(conversation).turns();
    expect(readTraceHeaders(turn!.message.headers)?.traceId).toBe(handle.spanContext().traceId);
  });

  it('an append made while a span is active (a context manager installed) joins that span’s trace', async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    cleanups.push(async () => {
      context.disable();
    });
    const { laser, memory } = await instrumented();
    const session = sessions(laser).create('traced-under-a-request');
    const tracer = memory.tracerProvider.getTracer('test');
    const request = tracer.startSpan('handle request');
    await context.with(trace.setSpan(context.active(), request), () => session.append('instruction', 'hello'));
    request.end();
    const append = memory.spans().find((s) => s.name === 'session append')!;
    expect(append.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    const [turn] = await session.turns();
    expect(readTraceHeaders(turn!.message.headers)?.traceId).toBe(request.spanContext().traceId);
  });

  it('reads and checkpoints write nothing, and without the instrumentation an append carries no trace context', async () => {
    const { laser, memory } = await instrumented();
    const session = sessions(laser).create('plain');
    await session.context();
    expect(memory.spans().map((s) => s.name)).toEqual(['session context']);
    const bare = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    await sessions(bare).bootstrap(1);
    const untraced = sessions(bare).create('untraced');
    await untraced.append('instruction', 'hello');
    const [turn] = await untraced.turns();
    expect(turn!.message.headers.has(TRACEPARENT_HEADER)).toBe(false);
  });
});
