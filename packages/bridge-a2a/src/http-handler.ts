import type { SignedCard } from '@agdx/sign';
import { AgdxError } from '@agdx/wire';
import { A2aMethod, type A2aBridge } from './a2a-bridge.js';
import { AGENT_CARD_PATH, type A2aAgentCard } from './card.js';
import {
  authenticateRequest,
  authorizeRequest,
  DEFAULT_MAX_BODY_BYTES,
  jsonResponse,
  readJsonBody,
  rpcErrorResponse,
  type EdgeAuthorization,
} from '@agdx/bridge-kit';
import { parseRpcRequest, PublicErrorMessage, publicErrorMessage, requestIdOf, rpcError, rpcResult, type JsonRpcId } from '@agdx/bridge-kit';
import { taskStateToJson, taskToJson, type A2aTask } from './task.js';

/** Default wait for the terminal reply of a streamed task (30 s). */
export const DEFAULT_STREAM_TIMEOUT_MS: number = 30_000;

/** Options of {@link createA2aHttpHandler}. */
export interface A2aHttpHandlerOptions {
  /**
   * The public base URL of the JSON-RPC endpoint written into the served card. By default it is
   * derived from the request: the card's URL without `.well-known/agent-card.json`.
   */
  readonly publicUrl?: string | undefined;
  /** Serves this card (for example a signed one) instead of `bridge.card()`. Its interface URL is served as given. */
  readonly card?: (() => A2aAgentCard | SignedCard<A2aAgentCard> | Promise<A2aAgentCard | SignedCard<A2aAgentCard>>) | undefined;
  /** Optional edge authorization of JSON-RPC calls (the card stays public). */
  readonly authorize?: EdgeAuthorization | undefined;
  /** Largest accepted body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number | undefined;
  /** How long a streamed task waits for its reply (default 30 s); then the stream ends with an error event. */
  readonly streamTimeoutMs?: number | undefined;
  /**
   * Off by default: SendMessage answers the submitted task at once, as seed 002 documents. When
   * set, SendMessage waits up to this many milliseconds for the task's reply and answers the
   * task as the reply leaves it (A2A v1.0's default, blocking behaviour), unless the client sets
   * `configuration.returnImmediately`. A task with no reply in time is answered as submitted.
   */
  readonly sendMessageWaitMs?: number | undefined;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function baseUrlOf(url: URL): string {
  const path = url.pathname.slice(0, url.pathname.length - AGENT_CARD_PATH.length);
  return `${url.origin}${path}`;
}

function acceptsEventStream(request: Request): boolean {
  return (request.headers.get('accept') ?? '').toLowerCase().includes('text/event-stream');
}

function sseFrame(id: JsonRpcId, body: { result: unknown } | { error: { code: number; message: string } }): Uint8Array {
  return new TextEncoder().encode(`data: ${JSON.stringify({ jsonrpc: '2.0', id, ...body })}\n\n`);
}

function statusUpdate(task: A2aTask): unknown {
  return { statusUpdate: { taskId: task.id, contextId: task.id, status: { state: taskStateToJson(task.state) } } };
}

function artifactUpdates(task: A2aTask): unknown[] {
  return taskToJson(task).artifacts?.map((artifact) => ({ artifactUpdate: { taskId: task.id, contextId: task.id, artifact, lastChunk: true } })) ?? [];
}

function returnsImmediately(params: Record<string, unknown>): boolean {
  const configuration = params['configuration'];
  return typeof configuration === 'object' && configuration !== null && (configuration as Record<string, unknown>)['returnImmediately'] === true;
}

async function sendAndWait(bridge: A2aBridge, id: JsonRpcId, params: Record<string, unknown>, waitMs: number, signal: AbortSignal): Promise<unknown> {
  let watched: Awaited<ReturnType<A2aBridge['watch']>>;
  try {
    watched = await bridge.watch(params, { timeoutMs: waitMs, signal });
  } catch (error) {
    return rpcError(id, publicErrorMessage(error));
  }
  try {
    return rpcResult(id, { task: taskToJson(await watched.final) });
  } catch (error) {
    if (AgdxError.is(error, 'timeout')) return rpcResult(id, { task: taskToJson(watched.task) });
    return rpcError(id, publicErrorMessage(error));
  }
}

async function streamTask(bridge: A2aBridge, id: JsonRpcId, params: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<Response> {
  let watched: Awaited<ReturnType<A2aBridge['watch']>>;
  try {
    watched = await bridge.watch(params, { timeoutMs, signal });
  } catch (error) {
    return jsonResponse(200, rpcError(id, publicErrorMessage(error)));
  }
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // After the client went away (cancel) nothing may be enqueued any more.
      const send = (frame: Uint8Array): void => {
        if (!cancelled) controller.enqueue(frame);
      };
      send(sseFrame(id, { result: { task: taskToJson(watched.task) } }));
      try {
        const final = await watched.final;
        for (const update of artifactUpdates(final)) send(sseFrame(id, { result: update }));
        // A reply without a terminal state (for example InputRequired) still ends this stream.
        send(sseFrame(id, { result: statusUpdate(final) }));
      } catch (error) {
        send(sseFrame(id, { error: { code: -32000, message: publicErrorMessage(error) } }));
      }
      if (!cancelled) controller.close();
    },
    cancel() {
      cancelled = true;
      watched.cancel();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/**
 * A web-standard `(Request) => Promise<Response>` handler for an A2A bridge: the Agent Card at
 * `.well-known/agent-card.json` (GET) and JSON-RPC on every other path (POST). It runs in
 * node:http (through `@agdx/bridge-a2a/node`), Hono (`app.all('/*', c => handler(c.req.raw))`)
 * and any fetch-style runtime. A body that is not JSON gets a 4xx before the bridge runs.
 */
export function createA2aHttpHandler(bridge: A2aBridge, options: A2aHttpHandlerOptions = {}): (request: Request) => Promise<Response> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  return async (request) => {
    try {
      const url = new URL(request.url);
      const method = request.method.toUpperCase();
      if (url.pathname.endsWith(`/${AGENT_CARD_PATH}`)) {
        if (method !== 'GET' && method !== 'HEAD') return jsonResponse(405, { error: 'method not allowed' }, { allow: 'GET' });
        if (options.card !== undefined) return jsonResponse(200, await options.card());
        const card = bridge.card();
        const publicUrl = options.publicUrl ?? baseUrlOf(url);
        return jsonResponse(200, { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: publicUrl })) });
      }
      if (method !== 'POST') return jsonResponse(405, rpcError(null, PublicErrorMessage.InvalidRequest), { allow: 'POST' });
      // Who is calling is settled from the headers before a byte of the body is read.
      const unauthenticated = await authenticateRequest(options.authorize, request);
      if (unauthenticated !== undefined) return unauthenticated;
      const body = await readJsonBody(request, maxBodyBytes);
      if (!body.ok) return body.response;
      const parsed = parseRpcRequest(body.value);
      if (parsed === undefined) return rpcErrorResponse(400, requestIdOf(body.value), PublicErrorMessage.InvalidRequest);
      const denied = await authorizeRequest(options.authorize, request, parsed.method, parsed.id);
      if (denied !== undefined) return denied;
      if (parsed.method === A2aMethod.SendMessage && options.sendMessageWaitMs !== undefined && !returnsImmediately(parsed.params)) {
        return jsonResponse(200, await sendAndWait(bridge, parsed.id, parsed.params, options.sendMessageWaitMs, request.signal));
      }
      if (parsed.method === A2aMethod.SendStreamingMessage && acceptsEventStream(request)) {
        return await streamTask(bridge, parsed.id, parsed.params, streamTimeoutMs, request.signal);
      }
      const answer = await bridge.handleRpc(body.value);
      return jsonResponse(200, answer);
    } catch (error) {
      return jsonResponse(500, rpcError(null, publicErrorMessage(error)));
    }
  };
}
