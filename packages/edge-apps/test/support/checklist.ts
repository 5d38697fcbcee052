/**
 * The checklist every framework mount must pass, driven by the official clients over a real
 * loopback server: the A2A card with the mount prefix, SendMessage and streaming; MCP initialize
 * and a tool call; an AG-UI run to RUN_FINISHED; 413 for an oversized body; 401 without
 * credentials; a client that goes away mid-stream cancelling the work. Each framework's test file
 * starts its app and calls {@link edgeChecklist}.
 */

import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { HttpAgent } from '@ag-ui/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from '@agdx/bridge-testing';
import { ConversationId } from '@agdx/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOLD, MOUNTS, startEdge, type Edge, type EdgeHandlers } from '../../../../examples/edge-app/edge.js';
import { observeAll, type Observations } from './observe.js';

/** The token the checklist's clients send. */
export const TOKEN = 'edge-test-token';
/** The body cap of every mount in the checklist. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A started app: its base URL and how to stop it. */
export interface RunningApp {
  readonly url: string;
  close(): Promise<void>;
}

/** What a framework's test gives the checklist: how to start its app over the handlers. */
export type StartApp = (handlers: EdgeHandlers) => Promise<RunningApp>;

const AUTH = { authorization: `Bearer ${TOKEN}` };

/** fetch with the bearer token, for the official A2A client. */
const authedFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', AUTH.authorization);
  return fetch(input, { ...init, headers });
};

function a2aClientFactory(): ClientFactory {
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: authedFetch })] }));
}

function textMessage(id: string, value: string): never {
  return { message: { messageId: id, role: 1, parts: [{ content: { $case: 'text', value } }] } } as never;
}

/** A JSON-RPC call body. */
function rpc(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
}

/** Defines the checklist's tests for one framework. */
export function edgeChecklist(framework: string, start: StartApp): void {
  describe(`${framework}: A2A, MCP and AG-UI under path prefixes`, () => {
    let edge: Edge;
    let app: RunningApp;
    let seen: Record<keyof EdgeHandlers, Observations>;
    beforeAll(async () => {
      edge = await startEdge(new Map([[TOKEN, { audience: ['agdx-edge'], scopes: ['agents'] }]]), MAX_BODY_BYTES);
      const observed = observeAll(edge.handlers);
      seen = observed.seen;
      app = await start(observed.handlers);
    });
    afterAll(async () => {
      await app?.close();
      await edge?.close();
    });

    it('serves the Agent Card with the mount prefix in its URL, and the official A2A client sends and streams through it', async () => {
      const card = (await (await fetch(`${app.url}${MOUNTS.a2a}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
      expect(card.supportedInterfaces[0]?.url).toBe(`${app.url}${MOUNTS.a2a}/`);
      const client = await a2aClientFactory().createFromUrl(`${app.url}${MOUNTS.a2a}/`);
      const sent = (await client.sendMessage(textMessage('m1', 'hello'))) as { status?: { state: number }; artifacts?: { parts: { content: unknown }[] }[] };
      expect(sent.status?.state).toBe(3);
      expect(sent.artifacts?.[0]?.parts[0]?.content).toEqual({ $case: 'text', value: expect.stringContaining('hello') });
      const streamed: string[] = [];
      for await (const event of client.sendMessageStream(textMessage('m2', 'stream me'))) {
        streamed.push((event as { payload: { $case: string } }).payload.$case);
      }
      expect(streamed).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    });

    it('lets the official MCP client initialize and call a tool', async () => {
      const client = new Client({ name: `${framework}-test`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}${MOUNTS.mcp}`), { requestInit: { headers: AUTH } }));
      try {
        expect(client.getServerVersion()?.name).toBe('edge-tools');
        const result = await client.callTool({ name: 'ask', arguments: { question: 'status?' } });
        expect(result.content).toEqual([{ type: 'text', text: 'answer to status?' }]);
      } finally {
        await client.close();
      }
    });

    it('runs an AG-UI run with the official HttpAgent to RUN_FINISHED', async () => {
      const agent = new HttpAgent({ url: `${app.url}${MOUNTS.agui}`, threadId: ConversationId.new().toString(), headers: AUTH });
      agent.addMessage({ id: 'u1', role: 'user', content: 'hi there' });
      const types: string[] = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void types.push(event.type) });
      expect(types[0]).toBe('RUN_STARTED');
      expect(types.at(-1)).toBe('RUN_FINISHED');
    });

    it('answers a body over the cap with 413 in the bridge format, on every edge', async () => {
      const big = rpc('SendMessage', { message: { messageId: 'b', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(MAX_BODY_BYTES + 1) }] } });
      for (const mount of Object.values(MOUNTS)) {
        const response = await fetch(`${app.url}${mount}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: big });
        expect(response.status, mount).toBe(413);
        expect(response.headers.get('content-type'), mount).toContain('application/json');
        expect(await response.json(), mount).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.any(String) } });
      }
    });

    it('answers 401 in the bridge format without credentials, on every edge, while the card stays public', async () => {
      for (const mount of Object.values(MOUNTS)) {
        const response = await fetch(`${app.url}${mount}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: rpc('ping', {}),
        });
        expect(response.status, mount).toBe(401);
        expect(await response.json(), mount).toMatchObject({ jsonrpc: '2.0', error: { message: 'unauthenticated' } });
      }
      expect((await fetch(`${app.url}${MOUNTS.a2a}/.well-known/agent-card.json`)).status).toBe(200);
    });

    it('cancels the work when the client goes away mid-stream', async () => {
      const before = { ...seen.a2a };
      const controller = new AbortController();
      const response = await fetch(`${app.url}${MOUNTS.a2a}`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: rpc('SendStreamingMessage', { message: { messageId: 'h', role: 'ROLE_USER', parts: [{ text: HOLD }] } }),
        signal: controller.signal,
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = response.body!.getReader();
      // The first frame (the submitted task) arrives while the task is still open: not buffered.
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toContain('TASK_STATE_SUBMITTED');
      controller.abort();
      await reader.cancel().catch(() => undefined);
      await eventually(async () => (seen.a2a.cancelled > before.cancelled && seen.a2a.aborted > before.aborted ? true : undefined), 10_000, 'the stream to be cancelled');
    });

    it('ends the AG-UI follow loop when the live page goes away from a quiet conversation', async () => {
      const before = { ...seen.agui };
      const controller = new AbortController();
      // A conversation with nothing in it: the head must arrive although no event was written.
      const response = await fetch(`${app.url}${MOUNTS.agui}?threadId=${ConversationId.new().toString()}`, {
        headers: { ...AUTH, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      controller.abort();
      await eventually(async () => (seen.agui.cancelled > before.cancelled && seen.agui.aborted > before.aborted ? true : undefined), 10_000, 'the follow loop to stop');
    });
  });
}
