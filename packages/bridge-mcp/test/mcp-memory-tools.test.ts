/**
 * `withMemoryTools(store)` with a `@agdx/sessions` memory handle: the bridge runs remember and
 * recall itself (no command is published), recall ranks by keyword (hybrid with an embedder), and
 * bad arguments or a failing embedder are tool errors with fixed messages.
 */
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { McpBridge } from '@agdx/bridge-mcp';
import { sessions, type Embedder } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { InvalidError } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

async function setup() {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'mcp-memory' });
  await laser.bootstrap(1);
  const memory = sessions(laser).create('mcp-user-7').memory();
  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops');
  return { log, laser, memory, bridge };
}

async function rpc(bridge: McpBridge, name: string, args: Record<string, unknown>) {
  const response = (await bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })) as {
    result?: { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  };
  return response.result;
}

describe('MCP memory tools backed by session memory', () => {
  it('remember stores in the session memory; recall answers the best keyword matches first', async () => {
    const { log, memory, bridge } = await setup();
    bridge.withMemoryTools(memory);
    const before = (await log.describeTopic({ stream: 'mcp-memory', topic: AgentTopic.ToolCalls })).partitions[0]!.nextOffset;
    const stored = await rpc(bridge, 'remember', { text: 'the deploy key rotates every friday' });
    const id = stored?.structuredContent?.['id'];
    expect(typeof id).toBe('string');
    await rpc(bridge, 'remember', { text: 'lunch is at noon' });
    await memory.remember('friday standup moved to thursday');
    const recalled = await rpc(bridge, 'recall', { query: 'When does the deploy key rotate?', limit: 5 });
    const items = recalled?.structuredContent?.['items'] as { id: string; text: string; score: number }[];
    expect(items[0]).toMatchObject({ id, text: 'the deploy key rotates every friday' });
    expect(items.map((i) => i.text)).not.toContain('lunch is at noon');
    expect(JSON.parse(recalled!.content[0]!.text)).toEqual({ items });
    // nothing went to a worker
    expect((await log.describeTopic({ stream: 'mcp-memory', topic: AgentTopic.ToolCalls })).partitions[0]!.nextOffset).toBe(before);
    const direct = await bridge.callTool('recall', { query: 'friday', limit: 1 });
    expect((direct.structuredContent?.['items'] as unknown[]).length).toBe(1);
  });

  it('uses hybrid recall on a vector memory handle', async () => {
    const { memory, bridge } = await setup();
    const embedder: Embedder = { dimensions: 2, embed: (texts) => texts.map((t) => (/coffee|espresso|drink/.test(t) ? [1, 0.01] : [0.01, 1])) };
    bridge.withMemoryTools(memory.withEmbedder(embedder));
    await rpc(bridge, 'remember', { text: 'orders an espresso at nine' });
    await rpc(bridge, 'remember', { text: 'parks on level two' });
    const recalled = await rpc(bridge, 'recall', { query: 'favourite drink' });
    const items = recalled?.structuredContent?.['items'] as { text: string }[];
    expect(items[0]?.text).toBe('orders an espresso at nine');
  });

  it('arguments the schema refuses are error responses; bad values and a failing embedder are tool errors with fixed messages', async () => {
    const { memory, bridge } = await setup();
    bridge.withMemoryTools(
      memory.withEmbedder({
        dimensions: 2,
        embed: () => {
          throw new Error('secret upstream detail');
        },
      }),
    );
    // Arguments the tool's input schema refuses never reach the memory: an error response that
    // names the member, as for any tool.
    for (const [name, args, field] of [
      ['remember', {}, 'arguments.text'],
      ['recall', { query: 'tea', limit: 0 }, 'arguments.limit'],
      ['recall', { query: 'tea', limit: 'many' }, 'arguments.limit'],
    ] as const) {
      const response = (await bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })) as {
        result?: unknown;
        error?: { data?: { field?: string } };
      };
      expect(response.result).toBeUndefined();
      expect(response.error?.data?.field, `${name} ${JSON.stringify(args)}`).toBe(field);
    }
    for (const [name, args, message] of [
      ['remember', { text: 'x'.repeat(70_000) }, 'remember takes at most 65536 characters'],
      ['recall', { query: '' }, 'recall needs a non-empty query'],
      ['recall', { query: '?!' }, 'recall query has no words to search for'],
      ['recall', { query: 'tea' }, 'recall failed: the embedder failed'],
    ] as const) {
      const result = await rpc(bridge, name, args);
      expect(result?.isError).toBe(true);
      expect(result?.content[0]?.text).toBe(message);
    }
    expect(() => new McpBridge(AgdxClient.from(new MemoryLog(), { stream: 's' }), 'g', 'a', 'b', 'n').withMemoryTools({} as never)).toThrow(InvalidError);
  });
});
