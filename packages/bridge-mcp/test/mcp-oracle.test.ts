import { AgentTopic, agentMessageBody, readAgentMessage, type AgentHandle } from '@agdx/agents';
import { McpBridge, toolResultFromEnvelope, toolResultToJson, type McpPrompt, type McpRole } from '@agdx/bridge-mcp';
import { AgentErrorCode, readBridgeHops, type AgentEnvelope } from '@agdx/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { Divergences, envelopeOf, memoryClient, oracle, publishedEnvelopes, STREAM, text, worker, type LogicalEnvelope, type PublishedBatch } from '@agdx/bridge-testing';

type Case = Record<string, unknown> & { readonly id: string };
interface RpcCase extends Case {
  readonly request: unknown;
  readonly response: { readonly result?: Record<string, unknown>; readonly error?: unknown };
  readonly reply_kind?: 'response' | 'error' | 'empty';
  readonly published?: PublishedBatch[];
}
const mcp = oracle<{ sections: Record<string, Case[]> }>('mcp.json');
const rpcCases = (mcp.sections['rpc'] ?? []) as RpcCase[];
const divergences = new Divergences(new URL('./expectations/mcp.json', import.meta.url));
const handled = new Set(['rpc', 'tool_results']);
const allIds = new Set(Object.values(mcp.sections).flatMap((cases) => cases.map((c) => c.id)));
const MEMORY = new Set(['remember', 'recall']);

function resultOf(method: string, params?: Record<string, unknown>): Record<string, unknown> | undefined {
  return rpcCases.find((c) => {
    const r = c.request as { method?: string; params?: Record<string, unknown> };
    return r.method === method && c.response.result !== undefined && (params === undefined || JSON.stringify(r.params) === JSON.stringify(params));
  })?.response.result;
}

/** The reference bridge, rebuilt from the fixture's own list and read answers. */
function configure(bridge: McpBridge): McpBridge {
  const initialize = resultOf('initialize') as { serverInfo: { name: string } };
  expect(initialize.serverInfo.name).toBe(SERVER_NAME);
  let memory = false;
  for (const tool of (resultOf('tools/list') as { tools: { name: string; description?: string; inputSchema: unknown }[] }).tools) {
    if (MEMORY.has(tool.name)) {
      if (!memory) bridge.withMemoryTools();
      memory = true;
      continue;
    }
    bridge.withTool(tool.name, tool.description, tool.inputSchema);
  }
  for (const resource of (resultOf('resources/list') as { resources: { uri: string; name: string; mimeType?: string }[] }).resources) {
    const read = resultOf('resources/read', { uri: resource.uri }) as { contents: { text: string }[] };
    bridge.withResource(resource.uri, resource.name, resource.mimeType, read.contents[0]!.text);
  }
  for (const prompt of (resultOf('prompts/list') as { prompts: McpPrompt[] }).prompts) {
    const got = resultOf('prompts/get', { name: prompt.name }) as { messages: { role: McpRole; content: { text: string } }[] };
    bridge.withPrompt(prompt, got.messages.map((m) => [m.role, m.content.text] as const));
  }
  return bridge;
}

const SERVER_NAME = 'laser-mcp';

describe('oracle mcp.json', () => {
  it('has no section this test does not handle', () => {
    expect(Object.keys(mcp.sections).filter((s) => !handled.has(s))).toEqual([]);
  });

  describe('rpc', () => {
    it.each(rpcCases.map((c) => [c.id, c] as const))('%s', async (id, c) => {
      const { log, laser } = await memoryClient(1);
      let agent: AgentHandle | undefined;
      const empty = c.reply_kind === 'empty';
      if (c.reply_kind !== undefined && !empty) {
        // The worker answers as the case says: its expected result text, as a response or an error.
        const expected = c.response.result as { content: { text: string }[] };
        const body = expected.content[0]?.text ?? '';
        agent = await worker(laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, async (message, ctx) => {
          expect(agentMessageBody(message).length).toBeGreaterThan(0);
          if (c.reply_kind === 'error') return ctx.fail({ code: AgentErrorCode.ToolFailure, message: body, retryable: false });
          return ctx.respond(text.encode(body));
        });
      }
      try {
        const bridge = configure(new McpBridge(laser, 'mcp-bridge', AgentTopic.ToolCalls, AgentTopic.ToolResults, SERVER_NAME));
        if (empty) bridge.withTimeout(100);
        const response = await bridge.handleRpc(c.request);
        if (empty) {
          // Wire validation refuses a response without a body, so no worker can send this reply:
          // the call times out, and the mapping is checked on the envelope itself.
          divergences.markChecked(id);
          expect(response).toEqual({ jsonrpc: '2.0', id: (c.request as { id: unknown }).id, error: { code: -32000, message: 'internal error' } });
          const call = (await commands(log))[0]!.envelope.conversation.toString();
          const reply = envelopeOf({ kind: 'response', conversation: call, source: 'worker', correlation: call, last: false });
          expect(toolResultToJson(toolResultFromEnvelope(reply))).toEqual(c.response.result);
        } else {
          divergences.compare(id, response, c.response);
        }
        const published = await commands(log);
        // A call the bridge refuses (arguments its schema rejects) publishes nothing, whatever 0.1.1 did.
        const reference = !empty && 'error' in response && !('error' in c.response) ? [] : publishedEnvelopes(c.published ?? []);
        expect(published.length).toBe(reference.length);
        reference.forEach((ref, i) => {
          expect(published[i]!.contentType).toBe(ref.contentType);
          expect(shape(published[i]!.envelope)).toEqual(shape(ref.envelope));
        });
      } finally {
        await agent?.shutdown();
      }
    });
  });

  describe('tool_results', () => {
    it.each((mcp.sections['tool_results'] ?? []).map((c) => [c.id, c] as const))('%s', (id, c) => {
      divergences.compare(id, toolResultToJson(toolResultFromEnvelope(envelopeOf(c['envelope'] as LogicalEnvelope))), c['result']);
    });
  });

  afterAll(() => divergences.expectNoStaleEntries(allIds));
});

function shape(envelope: AgentEnvelope): unknown {
  return {
    kind: envelope.kind,
    source: envelope.source.value,
    target: envelope.target?.value,
    operation: envelope.operation,
    tool: envelope.tool,
    hops: readBridgeHops(envelope.metadata),
    body: Array.from(envelope.body ?? []),
    correlationIsConversation: envelope.correlation?.equals(envelope.conversation) ?? false,
    signed: envelope.signature !== undefined,
  };
}

async function commands(log: Awaited<ReturnType<typeof memoryClient>>['log']): Promise<{ envelope: AgentEnvelope; contentType: number | undefined }[]> {
  const out: { envelope: AgentEnvelope; contentType: number | undefined }[] = [];
  const topic = AgentTopic.ToolCalls;
  const description = await log.describeTopic({ stream: STREAM, topic });
  for (const p of description.partitions) {
    for (const record of await log.read({ stream: STREAM, topic, partition: p.partition, offset: 0n, maxCount: 10_000 })) {
      const message = readAgentMessage(record, { stream: STREAM, topic });
      if (message.envelope !== undefined) out.push({ envelope: message.envelope, contentType: message.contentType });
    }
  }
  return out;
}
