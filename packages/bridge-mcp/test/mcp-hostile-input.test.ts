import { AgentTopic, agentMessageBody, type AgdxTelemetry } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge, OUTPUT_SCHEMA_MISMATCH, PublicErrorMessage } from '@agdx/bridge-mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { decode, eventually, memoryClient, text, worker } from '@agdx/bridge-testing';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A bridge with a strict `ask` tool over a worker that records every body it is handed. */
async function strictBridge() {
  const { laser } = await memoryClient();
  const bodies: string[] = [];
  const agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, async (message, ctx) => {
    const body = decode(agentMessageBody(message));
    bodies.push(body);
    if (body.includes('slow')) return;
    return ctx.respond(text.encode('done'));
  });
  cleanups.push(() => agent.shutdown());
  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools').withTool('ask', 'ask the assistant', {
    type: 'object',
    properties: { q: { type: 'string' } },
    additionalProperties: false,
  });
  return { laser, bridge, bodies };
}

async function post(url: string, body: string, signal?: AbortSignal): Promise<{ status: number; json: { result?: unknown; error?: { code: number; message: string; data?: { field: string } } } }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body, signal });
  return { status: response.status, json: (await response.json()) as never };
}

describe('MCP tools/call arguments', () => {
  it('checks a `__proto__` member against the input schema, since the worker receives it', async () => {
    const { bridge, bodies } = await strictBridge();
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    // JSON.parse keeps `__proto__` as an own member, so it rides in the command body; the schema
    // allows no member but `q`, so the call must be refused before anything is published.
    const smuggled = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"q":"hi","__proto__":{"admin":true}}}}';
    const refused = await post(`${server.url}/mcp`, smuggled);
    expect(refused.status).toBe(200);
    expect(refused.json.error).toMatchObject({ code: -32000, message: PublicErrorMessage.InvalidRequest, data: { field: 'arguments.__proto__' } });
    const answered = await post(`${server.url}/mcp`, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"q":"hi"}}}');
    expect(answered.json.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(bodies).toEqual(['{"name":"ask","arguments":{"q":"hi"}}']);
  });
});

describe('MCP tools/call over HTTP', () => {
  it('releases the reply wait of a client that goes away, instead of holding it until the tool timeout', async () => {
    const { laser, bridge, bodies } = await strictBridge();
    bridge.withTimeout(600_000);
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const replies = laser.replies(AgentTopic.ToolResults);
    const controller = new AbortController();
    const call = post(`${server.url}/mcp`, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"q":"slow"}}}', controller.signal);
    call.catch(() => undefined);
    // The worker holds the call without answering: the bridge is waiting for its reply.
    await eventually(async () => (bodies.length === 1 && replies.pending === 1 ? true : undefined), 10_000, 'the call in flight');
    controller.abort();
    await expect(call).rejects.toThrow();
    await eventually(async () => (replies.pending === 0 ? true : undefined), 10_000, 'the wait released');
    // The bridge keeps serving.
    const next = await post(`${server.url}/mcp`, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"q":"hi"}}}');
    expect(next.json.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });

  it('handleRpc answers an aborted call with an error response and releases its wait', async () => {
    const { laser, bridge } = await strictBridge();
    bridge.withTimeout(600_000);
    const controller = new AbortController();
    const answer = bridge.handleRpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: { q: 'slow' } } }, { signal: controller.signal });
    const replies = laser.replies(AgentTopic.ToolResults);
    await eventually(async () => (replies.pending === 1 ? true : undefined), 10_000, 'the call in flight');
    controller.abort();
    expect(await answer).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: PublicErrorMessage.Internal } });
    expect(replies.pending).toBe(0);
  });
});

describe('MCP tool schemas and costly arguments', () => {
  async function tagsBridge() {
    const { laser, bridge, bodies } = await strictBridge();
    bridge.withTool('tag', 'tags things', { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } });
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const call = (id: number, args: string) => post(`${server.url}/mcp`, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"tag","arguments":${args}}}`);
    return { laser, bodies, call };
  }

  it('refuses arrays whose uniqueItems check would compare more pairs than the limit, before the quadratic check runs', async () => {
    const { bodies, call } = await tagsBridge();
    // 5,000 distinct items are 25 million comparisons; a body of 1 MiB holds about 175,000 (3·10^10).
    const tooMany = await call(1, `{"tags":[${Array.from({ length: 5000 }, (_, i) => i).join(',')}]}`);
    expect(tooMany.json.error).toMatchObject({ code: -32000, message: PublicErrorMessage.InvalidRequest, data: { field: 'arguments' } });
    expect(bodies).toEqual([]);
    const fits = await call(2, `{"tags":[${Array.from({ length: 4000 }, (_, i) => i).join(',')}]}`);
    expect(fits.json.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(bodies).toHaveLength(1);
  });

  it("refuses arguments nested deeper than the limit as the client's fault, not an internal error", async () => {
    const { bodies, call } = await tagsBridge();
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    const answer = await call(1, `{"tags":[${deep},${deep}]}`);
    expect(answer.json.error).toMatchObject({ code: -32000, message: PublicErrorMessage.InvalidRequest, data: { field: 'arguments' } });
    expect(bodies).toEqual([]);
  });
});

describe('MCP tool results', () => {
  it("refuses a worker's structured result whose uniqueItems check would compare more pairs than the limit, as a tool error", async () => {
    const { laser } = await memoryClient();
    const items = Array.from({ length: 5000 }, (_, i) => i);
    const agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, (_message, ctx) => ctx.respond(text.encode(JSON.stringify({ items }))));
    cleanups.push(() => agent.shutdown());
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools').withTool('list', 'lists', { type: 'object' }, {
      outputSchema: { type: 'object', properties: { items: { type: 'array', uniqueItems: true } } },
    });
    const answer = await bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list', arguments: {} } });
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: OUTPUT_SCHEMA_MISMATCH }], isError: true } });
  });

  it("answers a worker's structured result nested too deep to serialize as a tool error, not an HTTP 500 without the request id", async () => {
    const { laser } = await memoryClient();
    const deep = `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, (_message, ctx) => ctx.respond(text.encode(deep)));
    cleanups.push(() => agent.shutdown());
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools').withTool('dig', 'digs', { type: 'object' }, { outputSchema: { type: 'object' } });
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const answer = await post(`${server.url}/mcp`, '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"dig","arguments":{}}}');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: OUTPUT_SCHEMA_MISMATCH }], isError: true } });
  });
});

describe('MCP telemetry of hostile method names', () => {
  it('reports a method the bridge does not serve as _OTHER, never the client\'s text', async () => {
    const methods: string[] = [];
    const telemetry = { onServe: (event: { method: string }) => (methods.push(event.method), { run: <T>(work: () => Promise<T>) => work(), end: () => undefined }) } as unknown as AgdxTelemetry;
    const { laser } = await memoryClient();
    laser.instrument(telemetry);
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools').withTool('ask', 'ask', { type: 'object' });
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const unknown = await post(`${server.url}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: `x${'y'.repeat(500_000)}` }));
    expect(unknown.json.error?.message).toBe(PublicErrorMessage.UnsupportedOperation);
    await post(`${server.url}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(methods).toEqual(['_OTHER', 'tools/list']);
  });
});
