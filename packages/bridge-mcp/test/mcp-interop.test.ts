import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { agentMessageBody, AgentTopic } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { AgentErrorCode } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { decode, memoryClient, STREAM, text, worker } from '@agdx/bridge-testing';
import type { MemoryLog } from '@agdx/transport';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup() {
  const { laser, log } = await memoryClient();
  const agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, async (message, ctx) => {
    const call = JSON.parse(decode(agentMessageBody(message))) as { name: string; arguments?: Record<string, unknown> };
    if (call.name === 'explode') return ctx.fail({ code: AgentErrorCode.ToolFailure, message: 'tool exploded', retryable: false });
    if (call.name === 'stats') return ctx.respond(text.encode(JSON.stringify({ count: 3 })));
    if (call.name === 'badstats') return ctx.respond(text.encode(JSON.stringify({ count: 'three' })));
    return ctx.respond(text.encode(`echo: ${JSON.stringify(call.arguments ?? {})}`));
  });
  cleanups.push(() => agent.shutdown());
  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools')
    .withTool('ask', 'ask the assistant', { type: 'object', properties: { question: { type: 'string' } } })
    .withTool('explode', 'always fails', { type: 'object' })
    .withTool('stats', 'structured', { type: 'object' }, { outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } })
    .withTool('badstats', 'breaks its schema', { type: 'object' }, { outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } })
    .withTool('needs', 'requires an id', { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] })
    .withResource('mem://notes/1', 'note one', 'text/plain', 'hello')
    .withPrompt({ name: 'summarize', description: 'Summarize text', arguments: [{ name: 'text', required: true }] }, [['user', 'Summarize: {text}']]);
  return { laser, log, bridge };
}

describe('the official MCP TypeScript SDK client over Streamable HTTP', () => {
  it('initializes, lists and calls tools, reads a resource and gets a prompt', async () => {
    const { bridge } = await setup();
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = new Client({ name: 'interop-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    await client.connect(transport);
    cleanups.push(() => client.close());

    expect(client.getServerVersion()?.name).toBe('ops-tools');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['ask', 'explode', 'stats', 'badstats', 'needs']);

    const ok = await client.callTool({ name: 'ask', arguments: { question: 'status?' } });
    expect(ok.isError).toBeFalsy();
    expect(ok.content).toEqual([{ type: 'text', text: 'echo: {"question":"status?"}' }]);

    const failed = await client.callTool({ name: 'explode', arguments: {} });
    expect(failed.isError).toBe(true);

    const structured = await client.callTool({ name: 'stats', arguments: {} });
    expect(structured.structuredContent).toEqual({ count: 3 });

    const resource = await client.readResource({ uri: 'mem://notes/1' });
    expect(resource.contents).toEqual([{ uri: 'mem://notes/1', mimeType: 'text/plain', text: 'hello' }]);

    const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'x' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize: x' } }]);
  });

  it('refuses arguments the input schema rejects before publishing, and names the field', async () => {
    const { bridge, log } = await setup();
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await connect(server.url);

    const wrongType = await client.callTool({ name: 'ask', arguments: { question: 42 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(wrongType).toBeInstanceOf(McpError);
    expect((wrongType as McpError).code).toBe(-32000);
    expect((wrongType as McpError).message).toContain('invalid request');
    expect((wrongType as McpError).data).toMatchObject({ field: 'arguments.question' });

    // No arguments at all are checked as {}: the required member is missing, refused at once.
    const missing = await client.callTool({ name: 'needs' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((missing as McpError).data).toMatchObject({ field: 'arguments.id' });

    expect(await toolCallsOnLog(log)).toBe(0n);
  });

  it('substitutes prompt arguments, refuses a missing required one, and lists no resource templates', async () => {
    const { bridge } = await setup();
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await connect(server.url);

    const injected = await client.getPrompt({ name: 'summarize', arguments: { text: '{text} and more' } });
    expect(injected.messages[0]?.content).toEqual({ type: 'text', text: 'Summarize: {text} and more' });
    const refused = await client.getPrompt({ name: 'summarize', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refused as McpError).data).toMatchObject({ field: 'arguments.text' });

    expect(await client.listResourceTemplates()).toEqual({ resourceTemplates: [] });
  });

  it('turns a structured result that breaks the output schema into a tool error the client accepts', async () => {
    const { bridge } = await setup();
    const server = await serve(createMcpHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await connect(server.url);
    await client.listTools();
    const bad = await client.callTool({ name: 'badstats', arguments: {} });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    expect(bad.content).toEqual([{ type: 'text', text: 'the tool result does not match the tool output schema' }]);
  });
});

/** How many records the tool-call topic holds, over all partitions. */
async function toolCallsOnLog(log: MemoryLog): Promise<bigint> {
  const topic = await log.describeTopic({ stream: STREAM, topic: AgentTopic.ToolCalls });
  return topic.partitions.reduce((sum, p) => sum + p.nextOffset, 0n);
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'interop-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  cleanups.push(() => client.close());
  return client;
}
