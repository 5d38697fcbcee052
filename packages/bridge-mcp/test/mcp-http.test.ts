import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AgentTopic, agentMessageBody, readAgentMessage } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge, MEMORY_TOOLS, PublicErrorMessage } from '@agdx/bridge-mcp';
import { AgdxError, AgentErrorCode, ConversationId, decodeSessionEnd, readBridgeHops, TaskState, type AgentEnvelope } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { decode, memoryClient, serveHono, STREAM, text, worker } from '@agdx/bridge-testing';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const publicMessages = new Set<string>(Object.values(PublicErrorMessage));

async function echoBridge(partitions = 2) {
  const { log, laser } = await memoryClient(partitions);
  const agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, async (message, ctx) => {
    const body = decode(agentMessageBody(message));
    if (body.includes('boom')) return ctx.fail({ code: AgentErrorCode.ToolFailure, message: 'tool exploded', retryable: false });
    if (body.includes('slow')) return;
    return ctx.respond(text.encode(`echo: ${body}`));
  });
  cleanups.push(() => agent.shutdown());
  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools').withTool('ask', 'ask the assistant', { type: 'object' });
  return { log, laser, bridge };
}

function rpc(body: unknown, headers: Record<string, string> = {}, method = 'POST'): Request {
  return new Request('http://127.0.0.1/mcp', {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

async function sessionRecords(log: Awaited<ReturnType<typeof memoryClient>>['log']): Promise<AgentEnvelope[]> {
  const out: AgentEnvelope[] = [];
  const description = await log.describeTopic({ stream: STREAM, topic: AgentTopic.Sessions });
  for (const p of description.partitions) {
    for (const r of await log.read({ stream: STREAM, topic: AgentTopic.Sessions, partition: p.partition, offset: 0n, maxCount: 1000 })) {
      out.push(readAgentMessage(r, { stream: STREAM, topic: AgentTopic.Sessions }).envelope!);
    }
  }
  return out;
}

describe('MCP over Hono', () => {
  it('serves the official client when mounted with app.all', async () => {
    const { bridge } = await echoBridge();
    const server = await serveHono(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = new Client({ name: 'hono-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    cleanups.push(() => client.close());
    await client.ping();
    const result = await client.callTool({ name: 'ask', arguments: { question: 'via hono' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: {"name":"ask","arguments":{"question":"via hono"}}' }]);
  });
});

describe('Streamable HTTP endpoint', () => {
  it('answers GET and DELETE with 405, notifications with 202, and requests with application/json', async () => {
    const { bridge } = await echoBridge();
    const handler = createMcpHttpHandler(bridge);
    expect((await handler(rpc(undefined, {}, 'GET'))).status).toBe(405);
    expect((await handler(rpc(undefined, {}, 'DELETE'))).status).toBe(405);
    const note = await handler(rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
    const list = await handler(rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' }));
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json');
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length).toBe(1);
    expect(await (await handler(rpc({ jsonrpc: '2.0', id: 'p', method: 'ping' }))).json()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('negotiates the protocol version from the client and refuses an unsupported version header', async () => {
    const { bridge } = await echoBridge();
    const handler = createMcpHttpHandler(bridge);
    const init = async (protocolVersion: string) =>
      ((await (await handler(rpc({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }))).json()) as {
        result: { protocolVersion: string };
      }).result.protocolVersion;
    expect(await init('2025-06-18')).toBe('2025-06-18');
    expect(await init('2024-11-05')).toBe('2024-11-05');
    expect(await init('1999-01-01')).toBe('2025-11-25');
    expect((await handler(rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' }))).status).toBe(400);
  });

  it('reads a JSON-RPC body and programmatic argument bytes that start with a byte order mark, and forwards the arguments as sent', async () => {
    const { bridge } = await echoBridge();
    bridge.withTool('needs', 'needs a question', { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] });
    const handler = createMcpHttpHandler(bridge);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'needs', arguments: { question: '\ufeffhi' } } });
    for (const body of [call, `\ufeff${call}`]) {
      const response = await handler(rpc(body));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'echo: {"name":"needs","arguments":{"question":"\ufeffhi"}}' }] } });
    }
    const marked = text.encode('\ufeff{"question":"hi"}');
    expect(await bridge.callTool('needs', marked)).toEqual({ content: [{ kind: 'text', text: 'echo: \ufeff{"question":"hi"}' }] });
    await expect(bridge.callTool('needs', text.encode('\ufeff{}'))).rejects.toThrow(expect.objectContaining({ kind: 'invalid' }));
  });

  it('rejects batches, non-JSON bodies and other media types with 4xx before the bridge runs', async () => {
    const { log, bridge } = await echoBridge();
    const handler = createMcpHttpHandler(bridge);
    const batch = await handler(rpc([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } }]));
    expect(batch.status).toBe(400);
    expect(await batch.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'invalid request' } });
    expect((await handler(rpc('{"jsonrpc":"2.0",'))).status).toBe(400);
    expect((await handler(new Request('http://h/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }))).status).toBe(415);
    const described = await log.describeTopic({ stream: STREAM, topic: AgentTopic.ToolCalls });
    expect(described.partitions.every((p) => p.nextOffset === 0n)).toBe(true);
  });

  it('answers 401 without a challenge for a wrong audience and 403 with the step-up challenge for a missing scope', async () => {
    const { bridge } = await echoBridge();
    const handler = createMcpHttpHandler(bridge, {
      authorize: {
        claims: (r) => (r.headers.get('x-aud') === null ? undefined : { audience: [r.headers.get('x-aud')!], scopes: (r.headers.get('x-scopes') ?? '').split(' ') }),
        audience: 'agents.example',
        scope: (method) => (method === 'tools/call' ? 'tool:write' : 'tool:read'),
      },
    });
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask', arguments: {} } };
    expect((await handler(rpc(call))).status).toBe(401);
    const wrong = await handler(rpc(call, { 'x-aud': 'other.example', 'x-scopes': 'tool:write' }));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBeNull();
    const stepUp = await handler(rpc(call, { 'x-aud': 'agents.example', 'x-scopes': 'tool:read' }));
    expect(stepUp.status).toBe(403);
    expect(stepUp.headers.get('www-authenticate')).toBe('Bearer scope="tool:write"');
    expect(await stepUp.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'step-up authorization required' } });
    expect((await handler(rpc(call, { 'x-aud': 'agents.example', 'x-scopes': 'tool:read tool:write' }))).status).toBe(200);
  });

  it('refuses an unauthenticated caller from its headers without reading its body, and runs the claims hook once per request', async () => {
    const { bridge } = await echoBridge();
    let lookups = 0;
    const handler = createMcpHttpHandler(bridge, {
      authorize: {
        claims: (r) => {
          lookups++;
          return r.headers.get('x-aud') === null ? undefined : { audience: ['agents.example'], scopes: ['tool:read'] };
        },
        audience: 'agents.example',
        scope: () => 'tool:read',
      },
    });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const refused = await handler(new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: endless, duplex: 'half' } as RequestInit));
    expect(refused.status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(1);
    lookups = 0;
    const ok = await handler(rpc({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'x-aud': 'agents.example' }));
    expect(ok.status).toBe(200);
    expect(lookups).toBe(1);
  });

  it('answers 1,000 malformed requests with well-formed errors and keeps serving', async () => {
    const { bridge } = await echoBridge();
    bridge.withTimeout(2_000);
    const server = await serveHono(createMcpHttpHandler(bridge, { maxBodyBytes: 4096 }));
    cleanups.push(() => server.close());
    const cases: { body: string | Uint8Array<ArrayBuffer>; type?: string }[] = [
      { body: '{"jsonrpc":"2.0","id":1,"method":' },
      { body: 'definitely not json' },
      { body: '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]' },
      { body: 'null' },
      { body: '"text"' },
      { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}' },
      { body: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":[1]}}' },
      { body: '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":5}}' },
      { body: '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{}}' },
      { body: '{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":7}}' },
      { body: '{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"debug"}}' },
      { body: '{"jsonrpc":"2.0","id":{},"method":"tools/list"}' },
      { body: 'y'.repeat(6000) },
      { body: '{}', type: 'text/plain' },
      { body: new Uint8Array([0xc3, 0x28, 0x7b, 0x7d]) },
    ];
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const one = async (): Promise<void> => {
      const pick = cases[random() % cases.length]!;
      const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': pick.type ?? 'application/json', accept: 'application/json' }, body: pick.body });
      expect(response.status).toBeGreaterThanOrEqual(200);
      expect(response.status).toBeLessThan(500);
      const json = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } };
      expect(json.jsonrpc).toBe('2.0');
      expect(json.error.code).toBe(-32000);
      expect(publicMessages.has(json.error.message)).toBe(true);
    };
    for (let batch = 0; batch < 50; batch++) await Promise.all(Array.from({ length: 20 }, one));
    const ok = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: { q: 'still here' } } }),
    });
    expect(((await ok.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toContain('still here');
  }, 120_000);
});

describe('McpBridge API', () => {
  it('requires object input schemas and lists the memory tools with their fixed schemas', async () => {
    const { laser } = await memoryClient(1);
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops');
    for (const schema of [undefined, null, 'object', [], 5]) {
      let error: unknown;
      try {
        bridge.withTool('t', undefined, schema);
      } catch (e) {
        error = e;
      }
      expect(AgdxError.is(error, 'invalid')).toBe(true);
    }
    bridge.withMemoryTools();
    expect(bridge.listTools().map((t) => t.name)).toEqual(['remember', 'recall']);
    expect(bridge.listTools()).toEqual(MEMORY_TOOLS);
    expect(() => bridge.withTimeout(-1)).toThrow();
    expect(bridge.withTimeout(5).timeoutMs).toBe(5);
  });

  it('refuses bad configuration with InvalidError, never an untyped throw', async () => {
    const { laser } = await memoryClient(1);
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops');
    const misuses: (() => unknown)[] = [
      () => bridge.withTool(5 as never, undefined, { type: 'object' }),
      () => bridge.withTool('t', undefined, { type: 'string' }),
      () => bridge.withTool('t', undefined, { type: 'object' }, { outputSchema: 'x' as never }),
      () => bridge.withPrompt(undefined as never),
      () => bridge.withPrompt({ name: 'p' }, 'x' as never),
      () => bridge.withPrompt({ name: 'p' }, [['system' as never, 'x']]),
      () => bridge.withResource('', 'n', undefined, 't'),
      () => bridge.withBridgeHops(5 as never),
      () => bridge.withBridgeHops('abc' as never),
      () => bridge.readResource('mem://none'),
      () => bridge.getPrompt('none'),
      () => bridge.initialize({ protocolVersion: 5 }),
      () => new McpBridge(laser, '', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops'),
      () => new McpBridge(laser, 'x', AgentTopic.ToolCalls, AgentTopic.ToolResults, ''),
    ];
    for (const misuse of misuses) {
      let error: unknown;
      try {
        misuse();
      } catch (e) {
        error = e;
      }
      expect(AgdxError.is(error, 'invalid'), String(misuse)).toBe(true);
    }
    await expect(bridge.callTool('missing', {})).rejects.toThrow('unknown MCP tool');
  });

  it('serves only the seven methods: notifications and ping get an error response', async () => {
    const { bridge } = await echoBridge();
    expect(await bridge.handleRpc({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'unsupported operation' } });
    expect(await bridge.handleRpc({ jsonrpc: '2.0', id: 9, method: 'ping' })).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32000, message: 'unsupported operation' } });
  });

  it('callToolTo addresses one agent; a timeout reads internal error through handleRpc', async () => {
    const { log, bridge } = await echoBridge();
    const result = await bridge.callToolTo('worker', 'ask', { question: 'status?' });
    expect(result).toEqual({ content: [{ kind: 'text', text: 'echo: {"question":"status?"}' }] });
    const sent = (await log.read({ stream: STREAM, topic: AgentTopic.ToolCalls, partition: 0, offset: 0n, maxCount: 10 }))
      .concat(await log.read({ stream: STREAM, topic: AgentTopic.ToolCalls, partition: 1, offset: 0n, maxCount: 10 }))
      .map((r) => readAgentMessage(r, { stream: STREAM, topic: AgentTopic.ToolCalls }).envelope!);
    expect(sent[0]!.target?.value).toBe('worker');
    expect(sent[0]!.tool).toBe('ask');
    bridge.withTimeout(50);
    expect(await bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { q: 'slow' } } })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'internal error' },
    });
  });

  it('callToolIn ends the child completed on a result and failed on a tool error or a timeout', async () => {
    const { log, bridge } = await echoBridge(1);
    const parent = ConversationId.new();
    const root = ConversationId.new();
    await bridge.callToolIn(parent, root, 'ask', { q: 'fine' });
    const failed = await bridge.callToolIn(parent, root, 'ask', { q: 'boom' });
    expect(failed).toEqual({ content: [{ kind: 'text', text: 'tool exploded' }], isError: true });
    bridge.withTimeout(50);
    await expect(bridge.callToolIn(parent, root, 'ask', { q: 'slow' })).rejects.toThrow();
    const records = (await sessionRecords(log)).filter((e) => e.operation === 'session');
    const children = [...new Set(records.map((e) => e.conversation.toString()))];
    expect(children.length).toBe(3);
    const states = children.map((child) => records.filter((e) => e.conversation.toString() === child).map((e) => e.taskState));
    expect(states).toEqual([
      [TaskState.Submitted, TaskState.Completed],
      [TaskState.Submitted, TaskState.Failed],
      [TaskState.Submitted, TaskState.Failed],
    ]);
    for (const e of records) {
      expect(readBridgeHops(e.metadata)).toEqual([]);
      expect(e.signature).toBeUndefined();
    }
    const starts = records.filter((e) => e.taskState === TaskState.Submitted);
    expect(starts.every((e) => e.parent?.equals(parent) && e.root?.equals(root))).toBe(true);
    const timedOut = records.at(-1)!;
    expect(decodeSessionEnd(timedOut.body!).error?.code).toBe(AgentErrorCode.DeadlineExceeded);
  });

  it('handleRpc never throws, even for hostile objects', async () => {
    const { bridge } = await echoBridge();
    const hostile = [
      new Proxy({}, { get: () => { throw new Error('boom'); }, has: () => { throw new Error('boom'); } }),
      { jsonrpc: '2.0', get id(): never { throw new Error('boom'); }, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { big: 10n } } },
      undefined,
    ];
    for (const request of hostile) {
      const answer = (await bridge.handleRpc(request)) as { error?: { code: number; message: string } };
      expect(answer.error?.code).toBe(-32000);
      expect(publicMessages.has(answer.error!.message)).toBe(true);
    }
  });

  it('refuses a loop through two bridges', async () => {
    const { laser } = await memoryClient(1);
    const a = new McpBridge(laser, 'mcp-a', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'a');
    const b = new McpBridge(laser, 'mcp-b', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'b').withBridgeHops(a.bridgeHops);
    expect(() => a.withBridgeHops(b.bridgeHops)).toThrow('bridge loop detected at `mcp-a`');
  });
});
