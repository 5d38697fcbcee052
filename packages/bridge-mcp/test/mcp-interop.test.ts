import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentMessageBody, AgentTopic } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { AgentErrorCode } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { decode, memoryClient, text, worker } from '@agdx/bridge-testing';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup() {
  const { laser } = await memoryClient();
  const agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, async (message, ctx) => {
    const call = JSON.parse(decode(agentMessageBody(message))) as { name: string; arguments?: Record<string, unknown> };
    if (call.name === 'explode') return ctx.fail({ code: AgentErrorCode.ToolFailure, message: 'tool exploded', retryable: false });
    if (call.name === 'stats') return ctx.respond(text.encode(JSON.stringify({ count: 3 })));
    return ctx.respond(text.encode(`echo: ${JSON.stringify(call.arguments ?? {})}`));
  });
  cleanups.push(() => agent.shutdown());
  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools')
    .withTool('ask', 'ask the assistant', { type: 'object', properties: { question: { type: 'string' } } })
    .withTool('explode', 'always fails', { type: 'object' })
    .withTool('stats', 'structured', { type: 'object' }, { outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } })
    .withResource('mem://notes/1', 'note one', 'text/plain', 'hello')
    .withPrompt({ name: 'summarize', description: 'Summarize text', arguments: [{ name: 'text', required: true }] }, [['user', 'Summarize: {text}']]);
  return { laser, bridge };
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
    expect(tools.tools.map((t) => t.name)).toEqual(['ask', 'explode', 'stats']);

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
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize: {text}' } }]);
  });
});
