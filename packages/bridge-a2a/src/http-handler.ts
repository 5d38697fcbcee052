import type { SignedCard } from '@agdx/sign';
import { AgdxError, InvalidError } from '@agdx/wire';
import { tracedServe, traceServeStream, type ServeEvent, type ServeStreamTrace } from '@agdx/agents';
import { A2aMethod, answeredTaskId, type A2aBridge, type WatchedTask } from './a2a-bridge.js';
import { AGENT_CARD_PATH, type A2aAgentCard } from './card.js';
import {
  authenticateRequest,
  authorizeRequest,
  BRIDGE_APP_ERROR_CODE,
  DEFAULT_MAX_BODY_BYTES,
  jsonResponse,
  readJsonBody,
  reserveEventStream,
  rpcErrorResponse,
  type EdgeAuthorization,
} from '@agdx/bridge-kit';
import { parseRpcRequest, PublicErrorMessage, publicErrorMessage, requestIdOf, rpcError, rpcErrorFor, rpcResult, rpcServeOutcome, type JsonRpcId, type JsonRpcResponse } from '@agdx/bridge-kit';
import { answersImmediately, readSendMessageParams, readTaskIdParams } from './params.js';
import { isTerminalA2aState, taskStateToJson, taskToJson, type A2aTask } from './task.js';

/** Default wait for the terminal reply of a streamed task (30 s). */
export const DEFAULT_STREAM_TIMEOUT_MS: number = 30_000;

/** Default bound of a blocking SendMessage (30 s): how long it waits for the task to settle. */
export const DEFAULT_SEND_MESSAGE_WAIT_MS: number = 30_000;

/** What the card option serves: a card (signed or not), or a function giving one per request. */
export type A2aCardSource =
  | A2aAgentCard
  | SignedCard<A2aAgentCard>
  | (() => A2aAgentCard | SignedCard<A2aAgentCard> | Promise<A2aAgentCard | SignedCard<A2aAgentCard>>);

/** Options of {@link createA2aHttpHandler}. */
export interface A2aHttpHandlerOptions {
  /**
   * The public base URL of the JSON-RPC endpoint written into the served card. By default it is
   * derived from the request: the card's URL without `.well-known/agent-card.json`.
   */
  readonly publicUrl?: string | undefined;
  /**
   * Serves this card (for example a signed one) instead of `bridge.card()`: the card itself, or a
   * function called per request (to rotate a signature). Its interface URL is served as given.
   */
  readonly card?: A2aCardSource | undefined;
  /** Optional edge authorization of JSON-RPC calls (the card stays public). */
  readonly authorize?: EdgeAuthorization | undefined;
  /** Largest accepted body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number | undefined;
  /** How long a streamed task waits for its reply (default 30 s); then the stream ends with an error event. */
  readonly streamTimeoutMs?: number | undefined;
  /**
   * The bound of a blocking SendMessage, in milliseconds (default
   * {@link DEFAULT_SEND_MESSAGE_WAIT_MS}). A2A clients block by default: SendMessage then waits
   * for the task's first reply (a terminal state, or an interrupted one such as InputRequired)
   * and answers the task as that reply leaves it. With no reply in time it answers the task's
   * current state as GetTask reads it (Working). A client that sets
   * `configuration.returnImmediately: true` (A2A v1.0) or `configuration.blocking: false` (0.3)
   * gets the submitted task at once, and so does every client when this is 0 (seed 002's answer).
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

/** The node adapter's own refusal of a stream past the client's limit, with the call's id. */
function tooManyStreams(id: JsonRpcId): Response {
  return jsonResponse(429, { jsonrpc: '2.0', id, error: { code: BRIDGE_APP_ERROR_CODE, message: 'too many open streams' } }, { 'retry-after': '1' });
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

/** A client that asked for an immediate answer; malformed params fall through to handleRpc's refusal. */
function blocksNot(params: Record<string, unknown>): boolean {
  try {
    return answersImmediately(readSendMessageParams(params, A2aMethod.SendMessage));
  } catch {
    return true;
  }
}

function checkWaitMs(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 2_147_483_647) {
    throw new InvalidError('sendMessageWaitMs must be a non-negative integer of milliseconds', { context: { field: 'sendMessageWaitMs' } });
  }
  return ms;
}

/** The serve event of a call this handler answers itself (not through `handleRpc`). */
function served(bridge: A2aBridge, method: A2aMethod): () => ServeEvent {
  return () => ({ protocol: 'a2a', method, agent: bridge.id });
}

/** A blocking SendMessage, as one SERVER span: the command's send and the worker's handling are its children. */
function tracedSendAndWait(bridge: A2aBridge, id: JsonRpcId, params: Record<string, unknown>, waitMs: number, signal: AbortSignal): Promise<JsonRpcResponse> {
  return tracedServe(bridge.telemetry, served(bridge, A2aMethod.SendMessage), () => sendAndWait(bridge, id, params, waitMs, signal), (answer) => rpcServeOutcome(answer, answeredTaskId));
}

async function sendAndWait(bridge: A2aBridge, id: JsonRpcId, params: Record<string, unknown>, waitMs: number, signal: AbortSignal): Promise<JsonRpcResponse> {
  let watched: Awaited<ReturnType<A2aBridge['watch']>>;
  try {
    readSendMessageParams(params, A2aMethod.SendMessage);
    watched = await bridge.watch(params, { timeoutMs: waitMs, signal });
  } catch (error) {
    return rpcErrorFor(id, error);
  }
  try {
    return rpcResult(id, { task: taskToJson(await watched.final) });
  } catch (error) {
    if (!AgdxError.is(error, 'timeout')) return rpcErrorFor(id, error);
  }
  // The bound passed: the task's current state, as GetTask reads it (a reply may have landed
  // just now), so the answer and a GetTask right after agree.
  try {
    return rpcResult(id, { task: taskToJson(await bridge.task(watched.task.id, { signal })) });
  } catch {
    return rpcResult(id, { task: taskToJson(watched.task) });
  }
}

/**
 * Opens a task's stream inside a SERVER span that lasts until the stream ends (the command's
 * send, and so the worker's handling, are its children); a refused call ends it failed at once.
 */
async function openTaskStream(trace: ServeStreamTrace, id: JsonRpcId, open: () => Promise<WatchedTask>, signal: AbortSignal): Promise<Response> {
  let watched: WatchedTask;
  try {
    watched = await trace.run(open);
  } catch (error) {
    const answer = rpcErrorFor(id, error);
    trace.end('failed', rpcServeOutcome(answer).failure);
    return jsonResponse(200, answer);
  }
  return taskStream(id, watched, trace, signal);
}

function streamTask(bridge: A2aBridge, id: JsonRpcId, params: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<Response> {
  const trace = traceServeStream(bridge.telemetry, served(bridge, A2aMethod.SendStreamingMessage));
  return openTaskStream(trace, id, async () => {
    readSendMessageParams(params, A2aMethod.SendStreamingMessage);
    return bridge.watch(params, { timeoutMs, signal });
  }, signal);
}

function resubscribe(bridge: A2aBridge, id: JsonRpcId, params: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<Response> {
  const trace = traceServeStream(bridge.telemetry, served(bridge, A2aMethod.SubscribeToTask));
  return openTaskStream(trace, id, () => bridge.follow(readTaskIdParams(params, A2aMethod.SubscribeToTask).id, { timeoutMs, signal }), signal);
}

/**
 * The SSE answer of a followed task: the task now, then its artifacts and final status. The
 * trace counts each frame by kind and ends with the stream: `completed` after the last frame,
 * `failed` after an error frame, `disconnected` when the client went away first.
 */
function taskStream(id: JsonRpcId, watched: WatchedTask, trace: ServeStreamTrace, signal: AbortSignal): Response {
  const task = watched.task.id;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // After the client went away (cancel) nothing may be enqueued any more.
      const send = (frame: Uint8Array, kind: string): void => {
        if (cancelled) return;
        controller.enqueue(frame);
        trace.sent(kind);
      };
      send(sseFrame(id, { result: { task: taskToJson(watched.task) } }), 'task');
      // A resubscription to a task that has already ended: the task itself says everything.
      if (isTerminalA2aState(watched.task.state)) {
        if (!cancelled) controller.close();
        trace.end('completed', undefined, task);
        return;
      }
      try {
        const final = await watched.final;
        for (const update of artifactUpdates(final)) send(sseFrame(id, { result: update }), 'artifact-update');
        // A reply without a terminal state (for example InputRequired) still ends this stream.
        send(sseFrame(id, { result: statusUpdate(final) }), 'status-update');
        trace.end('completed', undefined, task);
      } catch (error) {
        // An aborted request (the client gone) cancels the wait: that is a disconnect, not a failure.
        if (signal.aborted) trace.end('disconnected', undefined, task);
        const failure = { code: -32000, message: publicErrorMessage(error) };
        send(sseFrame(id, { error: failure }), 'error');
        trace.end('failed', failure, task);
      }
      if (!cancelled) controller.close();
    },
    cancel() {
      cancelled = true;
      watched.cancel();
      trace.end('disconnected', undefined, task);
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
  const sendMessageWaitMs = checkWaitMs(options.sendMessageWaitMs ?? DEFAULT_SEND_MESSAGE_WAIT_MS);
  const cardSource = options.card;
  return async (request) => {
    try {
      const url = new URL(request.url);
      const method = request.method.toUpperCase();
      if (url.pathname.endsWith(`/${AGENT_CARD_PATH}`)) {
        if (method !== 'GET' && method !== 'HEAD') return jsonResponse(405, { error: 'method not allowed' }, { allow: 'GET' });
        if (cardSource !== undefined) return jsonResponse(200, typeof cardSource === 'function' ? await cardSource() : cardSource);
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
      if (parsed.method === A2aMethod.SendMessage && sendMessageWaitMs > 0 && !blocksNot(parsed.params)) {
        return jsonResponse(200, await tracedSendAndWait(bridge, parsed.id, parsed.params, sendMessageWaitMs, request.signal));
      }
      // A streamed answer takes its slot under the node adapter's per-client stream limit before
      // the task is submitted or read, so a refused stream has started nothing.
      if (parsed.method === A2aMethod.SendStreamingMessage && acceptsEventStream(request)) {
        if (!reserveEventStream(request)) return tooManyStreams(parsed.id);
        return await streamTask(bridge, parsed.id, parsed.params, streamTimeoutMs, request.signal);
      }
      if (parsed.method === A2aMethod.SubscribeToTask && acceptsEventStream(request)) {
        if (!reserveEventStream(request)) return tooManyStreams(parsed.id);
        return await resubscribe(bridge, parsed.id, parsed.params, streamTimeoutMs, request.signal);
      }
      // A client that goes away (the request's signal) stops its publish or its read of the log.
      const answer = await bridge.handleRpc(body.value, { signal: request.signal });
      return jsonResponse(200, answer);
    } catch (error) {
      return jsonResponse(500, rpcError(null, publicErrorMessage(error)));
    }
  };
}
