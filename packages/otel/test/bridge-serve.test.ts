import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AgentTopic, type AgentHandle } from '@agdx/agents';
import { createAguiHandler } from '@agdx/agui';
import { A2aBridge } from '@agdx/bridge-a2a';
import { McpBridge } from '@agdx/bridge-mcp';
import { echoWorker, memoryClient } from '@agdx/bridge-testing';
import { ConversationId } from '@agdx/wire';
import { instrument } from '@agdx/otel';
import { memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

// Stopped last-in first-out after each test: the agents before the SDK they report to.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (let next = cleanups.pop(); next !== undefined; next = cleanups.pop()) await next();
});

function freshSdk(): MemorySdk {
  const memory = memorySdk();
  cleanups.push(() => memory.shutdown());
  return memory;
}

function keep(agent: AgentHandle): void {
  cleanups.push(() => agent.shutdown());
}

const parentOf = (spans: ReadableSpan[], span: ReadableSpan) => spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);

async function setup(): Promise<{ bridge: A2aBridge; memory: MemorySdk; telemetry: ReturnType<typeof instrument> }> {
  const memory = freshSdk();
  const { laser } = await memoryClient();
  const telemetry = instrument(laser, { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
  keep(await echoWorker(laser, AgentTopic.Commands, AgentTopic.Responses));
  return { bridge: new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses), memory, telemetry };
}

const sendMessage = (id: number) => ({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message: { messageId: `m${id}`, role: 'user', parts: [{ text: 'hello' }] } } });

describe('bridge calls', () => {
  it('an A2A SendMessage is a SERVER span parenting the send and the worker handle span', async () => {
    const { bridge, memory, telemetry } = await setup();
    const response = (await bridge.handleRpc(sendMessage(1))) as { result?: { task: { id: string } } };
    const taskId = response.result?.task.id;
    expect(taskId).toBeTypeOf('string');
    await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER), 'the worker handle span');
    await until(() => telemetry.telemetry.runningScopes === 0, 'every scope to end');
    const spans = memory.spans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('a2a SendMessage');
    expect(server.attributes['rpc.system']).toBe('jsonrpc');
    expect(server.attributes['rpc.method']).toBe('SendMessage');
    expect(server.attributes['gen_ai.agent.id']).toBe('a2a-gateway');
    expect(server.attributes['gen_ai.conversation.id']).toBe(taskId);
    expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(parentOf(spans, server)).toBeUndefined();

    const send = spans.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'a2a-gateway')!;
    expect(parentOf(spans, send)).toBe(server);
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'worker')!;
    expect(parentOf(spans, handle)).toBe(send);
    expect(handle.spanContext().traceId).toBe(server.spanContext().traceId);
  });

  it('a JSON-RPC error answer marks the SERVER span failed with its code, and sends nothing under it', async () => {
    const { bridge, memory } = await setup();
    const response = (await bridge.handleRpc({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'not a task id' } })) as { error?: { code: number; message: string } };
    expect(response.error?.code).toBe(-32000);
    const server = memory.spans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('a2a GetTask');
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(server.attributes['rpc.jsonrpc.error_code']).toBe(-32000);
    expect(server.attributes['rpc.jsonrpc.error_message']).toBe(response.error?.message);
    expect(memory.spans().filter((s) => s.kind === SpanKind.PRODUCER)).toHaveLength(0);
  });

  it('a malformed request is answered without a span, and an uninstalled hook reports nothing', async () => {
    const { bridge, memory, telemetry } = await setup();
    expect('error' in (await bridge.handleRpc({ nope: true }))).toBe(true);
    telemetry.uninstall();
    expect('result' in (await bridge.handleRpc(sendMessage(2)))).toBe(true);
    expect(memory.spans().filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(0);
  });

  it('an MCP tools/call is a SERVER span parenting the tool command, and the worker handles it in the same trace', async () => {
    const memory = freshSdk();
    const { laser } = await memoryClient();
    const telemetry = instrument(laser, { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
    keep(await echoWorker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults));
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops').withTool('ask', 'ask the assistant', { type: 'object' });
    const response = await bridge.handleRpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask', arguments: {} } });
    expect('result' in response).toBe(true);
    await until(() => telemetry.telemetry.runningScopes === 0, 'every scope to end');
    const spans = memory.spans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('mcp tools/call');
    expect(server.attributes['gen_ai.agent.id']).toBe('mcp-gateway');
    // The bridge waits for the tool result: the command is sent inside that wait, which the call parents.
    const command = spans.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'mcp-gateway')!;
    const wait = parentOf(spans, command)!;
    expect(wait.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(spans, wait)).toBe(server);
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['gen_ai.agent.id'] === 'worker')!;
    expect(handle.spanContext().traceId).toBe(server.spanContext().traceId);
  });

  it('an AG-UI run start is a SERVER span in the thread, parenting the run command', async () => {
    const memory = freshSdk();
    const { laser } = await memoryClient();
    const telemetry = instrument(laser, { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
    keep(await echoWorker(laser, AgentTopic.Commands, AgentTopic.Commands));
    const handler = createAguiHandler(laser, { topic: AgentTopic.Commands, startRuns: { source: 'ui' } });
    const thread = ConversationId.new().toString();
    const input = { threadId: thread, runId: 'r1', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'u1', role: 'user', content: 'hello' }] };
    const response = await handler(new Request('http://127.0.0.1/agui', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(input) }));
    expect(response.status).toBe(200);
    await response.body?.cancel();
    await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER), 'the worker handle span');
    await until(() => telemetry.telemetry.runningScopes === 0, 'every scope to end');
    const spans = memory.spans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('agui run');
    expect(server.attributes['gen_ai.conversation.id']).toBe(thread);
    expect(server.attributes['rpc.system']).toBeUndefined();
    const command = spans.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['gen_ai.agent.id'] === 'ui')!;
    expect(parentOf(spans, command)).toBe(server);
    const handle = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(parentOf(spans, handle)).toBe(command);
  });
});
