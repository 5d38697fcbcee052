/**
 * One AGDX client behind every edge: the A2A, MCP and AG-UI handlers over the same log, behind
 * one edge authorization, ready to mount in any framework (see the `*-app.ts` files here).
 *
 * The log is the embedded `MemoryLog` so the example runs anywhere; swap in
 * `@agdx/transport-iggy` for Apache Iggy. Tokens are checked by a stand-in lookup table: put
 * your token verification (JWT, introspection) in `claimsOf`.
 */

import { AgdxClient, Agent, agentMessageBody, AgentTopic, type AgentHandle, type EdgeClaims } from '@agdx/agents';
import { createAguiHandler } from '@agdx/agui';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { authenticateRequest, limitBody, type EdgeAuthorization } from '@agdx/bridge-kit';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

/** A web-standard handler, as every bridge serves. */
export type EdgeHandler = (request: Request) => Promise<Response>;

/** The three edges, each a web-standard handler. */
export interface EdgeHandlers {
  /** A2A: the Agent Card and JSON-RPC (SendMessage, streaming, GetTask, CancelTask). */
  readonly a2a: EdgeHandler;
  /** MCP Streamable HTTP: one `ask` tool. */
  readonly mcp: EdgeHandler;
  /** AG-UI: runs (POST) and the live conversation stream (GET) the live page reads. */
  readonly agui: EdgeHandler;
}

/** A running edge: its handlers and the client under them. */
export interface Edge {
  readonly handlers: EdgeHandlers;
  readonly client: AgdxClient;
  /** Stops the agents. */
  close(): Promise<void>;
}

/** Where each handler is mounted in the example apps. */
export const MOUNTS = { a2a: '/agents/a2a', mcp: '/agents/mcp', agui: '/agents/agui' } as const;

/** The audience of this edge's tokens and the scope every call needs. */
export const AUDIENCE = 'agdx-edge';
const SCOPE = 'agents';

/** A message body that makes the assistant hold its answer (to show a client going away mid-stream). */
export const HOLD = 'hold your answer';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bearerOrCookie(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  if (header !== null && /^bearer /i.test(header)) return header.slice(7).trim();
  // The live page's EventSource cannot set headers; the browser sends the cookie instead.
  const cookie = (request.headers.get('cookie') ?? '').split(';').map((part) => part.trim()).find((part) => part.startsWith('agdx_token='));
  return cookie?.slice('agdx_token='.length);
}

/** The one edge authorization every handler shares: a token from the header or the cookie. */
export function edgeAuthorization(tokens: ReadonlyMap<string, EdgeClaims>): EdgeAuthorization {
  return { audience: AUDIENCE, scope: SCOPE, claims: (request) => tokens.get(bearerOrCookie(request) ?? '') };
}

/** Runs a handler only for a request the authorization lets through (the AG-UI handler has no hook of its own). */
function authenticated(authorization: EdgeAuthorization, handler: EdgeHandler): EdgeHandler {
  return async (request) => (await authenticateRequest(authorization, request)) ?? handler(request);
}

async function spawn(client: AgdxClient, id: string, topic: string, replyTopic: string, answer: (body: string) => string | undefined): Promise<AgentHandle> {
  const handle = Agent.builder()
    .id(AgentId.new(id))
    .listenOn(topic)
    .respondOn(replyTopic)
    .handler({
      handle: async (message, ctx) => {
        const reply = answer(decoder.decode(agentMessageBody(message)));
        if (reply !== undefined) await ctx.respond(encoder.encode(reply));
      },
    })
    .build()
    .spawn(client);
  await handle.ready();
  return handle;
}

/**
 * Starts the agents and builds the three handlers over one client. `tokens` maps each bearer
 * token to its claims; a request without a known token gets 401 from every edge (the A2A
 * card stays public, as A2A clients fetch it before they authenticate).
 */
export async function startEdge(tokens: ReadonlyMap<string, EdgeClaims>, maxBodyBytes = 64 * 1024): Promise<Edge> {
  const client = AgdxClient.from(new MemoryLog(), { stream: 'edge-app' });
  await client.bootstrap(2);
  // The assistant answers A2A tasks and AG-UI runs; the tool agent answers MCP tool calls.
  const assistant = await spawn(client, 'assistant', AgentTopic.Sessions, AgentTopic.Sessions, (body) => (body.includes(HOLD) ? undefined : `handled: ${body}`));
  const tools = await spawn(client, 'tools', AgentTopic.ToolCalls, AgentTopic.ToolResults, (body) => {
    const call = JSON.parse(body) as { arguments?: { question?: unknown } };
    return `answer to ${String(call.arguments?.question)}`;
  });
  const authorize = edgeAuthorization(tokens);
  const a2aBridge = new A2aBridge(client, AgentId.new('a2a-gateway'), AgentTopic.Sessions, AgentTopic.Sessions).forAgent('assistant');
  const mcpBridge = new McpBridge(client, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'edge-tools').withTool('ask', 'ask the tool agent', {
    type: 'object',
    properties: { question: { type: 'string' } },
  });
  const handlers: EdgeHandlers = {
    a2a: createA2aHttpHandler(a2aBridge, { authorize, maxBodyBytes }),
    mcp: createMcpHttpHandler(mcpBridge, { authorize, maxBodyBytes }),
    // The AG-UI handler has its own 1 MiB cap; the edge's cap is held to here too (413).
    agui: authenticated(authorize, limitBody(createAguiHandler(client, { startRuns: { source: 'ui', target: 'assistant' } }), maxBodyBytes)),
  };
  return {
    handlers,
    client,
    close: async () => {
      await assistant.shutdown();
      await tools.shutdown();
    },
  };
}
