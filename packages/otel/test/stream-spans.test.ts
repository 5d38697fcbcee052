/**
 * Streamed bridge answers (A2A SendStreamingMessage and SubscribeToTask, AG-UI runs and GET
 * follows) as SERVER spans that last until the stream ends, with the sends made while serving
 * as their children and the worker's handling in the same trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AgentTopic, type AgdxClient, type AgentHandle } from '@agdx/agents';
import { createAguiHandler } from '@agdx/agui';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { toNodeListener } from '@agdx/bridge-a2a/node';
import { echoWorker, memoryClient, serveWith } from '@agdx/bridge-testing';
import { ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { instrument } from '@agdx/otel';
import { memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

// Stopped last-in first-out after each test: servers and agents before the SDK they report to.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (let next = cleanups.pop(); next !== undefined; next = cleanups.pop()) await next();
});

async function instrumented(): Promise<{ laser: AgdxClient; memory: MemorySdk; scopes: () => number }> {
  const memory = memorySdk();
  cleanups.push(() => memory.shutdown());
  const { laser } = await memoryClient();
  const { telemetry } = instrument(laser, { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
  return { laser, memory, scopes: () => telemetry.runningScopes };
}

function keep(agent: AgentHandle): void {
  cleanups.push(() => agent.shutdown());
}

const parentOf = (spans: ReadableSpan[], span: ReadableSpan) => spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
const serverSpan = (memory: MemorySdk, name: string) => memory.spans().find((s) => s.kind === SpanKind.SERVER && s.name === name);

/** The SERVER span `name`, once it has ended. */
async function endedServerSpan(memory: MemorySdk, name: string): Promise<ReadableSpan> {
  await until(() => serverSpan(memory, name) !== undefined, `the ${name} span to end`);
  return serverSpan(memory, name)!;
}

const message = { message: { messageId: 'm1', role: 'user', parts: [{ text: 'hello' }] } };
const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
const post = (body: unknown, accept = 'text/event-stream') =>
  new Request('http://127.0.0.1/a2a', { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(body) });
const runInput = (thread: string, content = 'hello') => ({ threadId: thread, runId: 'r1', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'u1', role: 'user', content }] });
const aguiPost = (input: unknown) => new Request('http://127.0.0.1/agui', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(input) });

/** Reads a stream until `text` holds `marker`, then cancels it (the client going away). */
async function readUntilThenCancel(body: ReadableStream<Uint8Array>, marker: string): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // Bounded: a stream that never shows the marker ends (done) or the test times out.
  for (let round = 0; round < 1_000 && !text.includes(marker); round++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describe('A2A streams', () => {
  it('SendStreamingMessage is one SERVER span until the stream ends, parenting the send and the worker handle', async () => {
    const { laser, memory, scopes } = await instrumented();
    keep(await echoWorker(laser, AgentTopic.Commands, AgentTopic.Responses));
    const handler = createA2aHttpHandler(new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses));
    const response = await handler(post(rpc('SendStreamingMessage', message)));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter((f) => f.startsWith('data: '));
    expect(frames.length).toBeGreaterThanOrEqual(2);
    const taskId = (JSON.parse(frames[0]!.slice(6)) as { result: { task: { id: string } } }).result.task.id;
    await until(() => scopes() === 0 && serverSpan(memory, 'a2a SendStreamingMessage') !== undefined, 'the stream span');
    const spans = memory.spans();
    const server = serverSpan(memory, 'a2a SendStreamingMessage')!;
    expect(server.attributes['rpc.method']).toBe('SendStreamingMessage');
    expect(server.attributes['gen_ai.agent.id']).toBe('a2a-gateway');
    expect(server.attributes['gen_ai.conversation.id']).toBe(taskId);
    expect(server.attributes['agdx.sse.end_reason']).toBe('completed');
    expect(server.attributes['agdx.sse.events']).toBe(frames.length);
    expect(server.attributes['agdx.sse.event_type.task']).toBe(1);
    expect(server.attributes['agdx.sse.event_type.status-update']).toBe(1);
    expect(server.events.map((e) => e.name)).toContain('first event');
    expect(server.status.code).not.toBe(SpanStatusCode.ERROR);

    const send = spans.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'a2a-gateway')!;
    expect(parentOf(spans, send)).toBe(server);
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'worker')!;
    expect(parentOf(spans, handle)).toBe(send);
    // The span covers the stream, not just the publish: it ends after the worker started handling.
    const nanos = (time: readonly [number, number]) => time[0] * 1e9 + time[1];
    expect(nanos(server.endTime)).toBeGreaterThan(nanos(handle.startTime));
    expect(nanos(server.endTime)).toBeGreaterThan(nanos(send.endTime));
  });

  it('a stream the client leaves ends its span disconnected, not failed (real HTTP)', async () => {
    const { laser, memory } = await instrumented();
    // Nobody answers: the stream waits for a reply until the client goes away.
    const server = await serveWith(toNodeListener)(createA2aHttpHandler(new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses)));
    cleanups.push(() => server.close());
    const client = new AbortController();
    const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(rpc('SendStreamingMessage', message)), signal: client.signal });
    const first = await readUntilThenCancel(response.body!, '\n\n');
    expect(first).toContain('"task"');
    client.abort();
    const span = await endedServerSpan(memory, 'a2a SendStreamingMessage');
    expect(span.attributes['agdx.sse.end_reason']).toBe('disconnected');
    expect(span.attributes['agdx.sse.events']).toBe(1);
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a stream whose reply never comes ends failed with the error frame it sent', async () => {
    const { laser, memory } = await instrumented();
    const handler = createA2aHttpHandler(new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses), { streamTimeoutMs: 50 });
    const text = await (await handler(post(rpc('SendStreamingMessage', message)))).text();
    expect(text).toContain('"error"');
    const span = await endedServerSpan(memory, 'a2a SendStreamingMessage');
    expect(span.attributes['agdx.sse.end_reason']).toBe('failed');
    expect(span.attributes['agdx.sse.event_type.error']).toBe(1);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['rpc.jsonrpc.error_code']).toBe(-32000);
  });

  it('SubscribeToTask is a SERVER span in the task, and refused params end it failed at once', async () => {
    const { laser, memory, scopes } = await instrumented();
    keep(await echoWorker(laser, AgentTopic.Commands, AgentTopic.Responses));
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const handler = createA2aHttpHandler(bridge, { sendMessageWaitMs: 0 });
    const submitted = (await (await handler(post(rpc('SendMessage', message), 'application/json'))).json()) as { result: { task: { id: string } } };
    const taskId = submitted.result.task.id;
    await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER) && scopes() === 0, 'the worker to answer');
    // The task has ended: the resubscription streams it as it stands and closes.
    const text = await (await handler(post(rpc('SubscribeToTask', { id: taskId })))).text();
    expect(text).toContain(taskId);
    const span = await endedServerSpan(memory, 'a2a SubscribeToTask');
    expect(span.attributes['gen_ai.conversation.id']).toBe(taskId);
    expect(span.attributes['agdx.sse.end_reason']).toBe('completed');

    const refused = (await (await handler(post(rpc('SubscribeToTask', { id: 'not-a-task' })))).json()) as { error?: { code: number } };
    expect(refused.error?.code).toBe(-32000);
    const failed = memory.spans().filter((s) => s.name === 'a2a SubscribeToTask').find((s) => s.status.code === SpanStatusCode.ERROR)!;
    expect(failed.attributes['agdx.sse.end_reason']).toBe('failed');
    expect(failed.attributes['agdx.sse.events']).toBe(0);
  });

  it('a blocking SendMessage over HTTP is a SERVER span parenting the send, the worker answering in its trace', async () => {
    const { laser, memory, scopes } = await instrumented();
    keep(await echoWorker(laser, AgentTopic.Commands, AgentTopic.Responses));
    const handler = createA2aHttpHandler(new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses));
    const answer = (await (await handler(post(rpc('SendMessage', message), 'application/json'))).json()) as { result: { task: { id: string } } };
    await until(() => scopes() === 0 && serverSpan(memory, 'a2a SendMessage') !== undefined, 'the call span');
    const spans = memory.spans();
    const server = serverSpan(memory, 'a2a SendMessage')!;
    expect(server.attributes['gen_ai.conversation.id']).toBe(answer.result.task.id);
    expect(server.attributes['agdx.sse.events']).toBeUndefined();
    const send = spans.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'a2a-gateway')!;
    expect(parentOf(spans, send)).toBe(server);
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(handle.spanContext().traceId).toBe(server.spanContext().traceId);
  });
});

describe('AG-UI streams', () => {
  it('a run is one SERVER span until RUN_FINISHED, parenting the run command and the worker handle', async () => {
    const { laser, memory, scopes } = await instrumented();
    keep(await echoWorker(laser, AgentTopic.Commands, AgentTopic.Commands));
    const handler = createAguiHandler(laser, { topic: AgentTopic.Commands, startRuns: { source: 'ui' } });
    const thread = ConversationId.new().toString();
    const text = await (await handler(aguiPost(runInput(thread)))).text();
    expect(text).toContain('RUN_FINISHED');
    await until(() => scopes() === 0 && serverSpan(memory, 'agui run') !== undefined, 'the run span');
    const spans = memory.spans();
    const server = serverSpan(memory, 'agui run')!;
    expect(server.attributes['gen_ai.conversation.id']).toBe(thread);
    expect(server.attributes['gen_ai.agent.id']).toBe('ui');
    expect(server.attributes['agdx.sse.end_reason']).toBe('completed');
    expect(server.attributes['agdx.sse.event_type.RUN_STARTED']).toBe(1);
    expect(server.attributes['agdx.sse.event_type.RUN_FINISHED']).toBe(1);
    expect(server.attributes['agdx.sse.events']).toBe(text.split('\n\n').filter((f) => f.includes('data: ')).length);
    expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
    const command = spans.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'ui')!;
    expect(parentOf(spans, command)).toBe(server);
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'worker')!;
    expect(parentOf(spans, handle)).toBe(command);
  });

  it('a run that times out ends its span failed with the RUN_ERROR message', async () => {
    const { laser, memory } = await instrumented();
    // Nobody answers the run's command.
    const handler = createAguiHandler(laser, { topic: AgentTopic.Commands, startRuns: { source: 'ui' }, runTimeoutMs: 50 });
    const text = await (await handler(aguiPost(runInput(ConversationId.new().toString())))).text();
    expect(text).toContain('RUN_ERROR');
    const span = await endedServerSpan(memory, 'agui run');
    expect(span.attributes['agdx.sse.end_reason']).toBe('failed');
    expect(span.attributes['agdx.sse.event_type.RUN_ERROR']).toBe(1);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.status.message).toContain('did not end within 50 ms');
  });

  it('a GET follow stream speaks as nobody and ends disconnected when the client leaves (real HTTP)', async () => {
    const { laser, memory } = await instrumented();
    const thread = ConversationId.new();
    const answer = laser.agdx(AgentTopic.Sessions, 'worker', thread).stream(MintUlid.mint(CorrelationId), 'chat');
    await answer.write(new TextEncoder().encode('hello'));
    await answer.finish('stop');
    const server = await serveWith(toNodeListener)(createAguiHandler(laser, { keepaliveMs: 60_000 }));
    cleanups.push(() => server.close());
    const client = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${thread.toString()}`, { signal: client.signal });
    expect(response.status).toBe(200);
    const seen = await readUntilThenCancel(response.body!, 'TEXT_MESSAGE_END');
    expect(seen).toContain('TEXT_MESSAGE_END');
    client.abort();
    const span = await endedServerSpan(memory, 'agui follow');
    expect(span.attributes['gen_ai.conversation.id']).toBe(thread.toString());
    expect(span.attributes['gen_ai.agent.id']).toBeUndefined();
    expect(span.attributes['agdx.sse.end_reason']).toBe('disconnected');
    expect(span.attributes['agdx.sse.events']).toBe(3);
    expect(span.attributes['agdx.sse.event_type.TEXT_MESSAGE_CONTENT']).toBe(1);
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a request refused before the stream begins ends its span failed; a malformed one makes none', async () => {
    const { laser, memory } = await instrumented();
    const handler = createAguiHandler(laser, { stream: 'no-such-stream' });
    expect((await handler(new Request(`http://127.0.0.1/agui?threadId=${ConversationId.new().toString()}`))).status).toBe(404);
    expect((await handler(new Request('http://127.0.0.1/agui?threadId=nope'))).status).toBe(400);
    const spans = memory.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(spans).toHaveLength(1);
    expect(spans[0]?.name).toBe('agui follow');
    expect(spans[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[0]?.attributes['agdx.sse.end_reason']).toBe('failed');
  });
});
