/**
 * The live endpoint: a web-standard `(Request) => Promise<Response>` streaming a conversation's
 * AG-UI events as Server-Sent Events, following new records as they land.
 */

import { AgentTopic, LayoutMismatchError, type AgdxClient } from '@agdx/agents';
import { AgdxError, ConversationId, CorrelationId, InvalidError, type SkippedRecordHandler } from '@agdx/wire';
import { followConversation, locateConversationEverywhere, unreadableStateReporter, type ConversationAddress } from './conversation-log.js';
import { AguiConverter } from './converter.js';
import type { AguiEvent } from './events.js';
import { RunFraming } from './run-framing.js';
import { formatEventIds, parseEventIds, SSE_CONTENT_TYPE, sseComment, sseEvent, type EventPosition } from './sse.js';

/** Settings of {@link createAguiHandler}. */
export interface AguiHandlerOptions {
  /** The stream (default: the client's default stream). */
  readonly stream?: string | undefined;
  /** The topic the conversation is read from (default `agent.sessions`). */
  readonly topic?: string | undefined;
  /** An SSE comment is sent after this long without events, in ms (default 15,000). */
  readonly keepaliveMs?: number | undefined;
  /** Extra response headers (for example CORS headers). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Sent as the SSE `retry:` field: how long an `EventSource` waits before reconnecting, in ms. */
  readonly retryMs?: number | undefined;
  /**
   * Receives each record the stream skipped (undecodable, or a state record whose body cannot be
   * read), as a `CodecError` naming its stream, topic, partition and offset. The stream goes on.
   */
  readonly onError?: SkippedRecordHandler | undefined;
}

/** A web-standard request handler. */
export type AguiRequestHandler = (request: Request) => Promise<Response>;

const DEFAULT_KEEPALIVE_MS = 15_000;
const LAYOUT_MISMATCH = LayoutMismatchError.KIND;
const MAX_BODY_BYTES = 1024 * 1024;

interface StreamRequest {
  readonly conversation: ConversationId;
  readonly after: readonly EventPosition[] | undefined;
  readonly run: { readonly threadId: string; readonly runId: string } | undefined;
}

function errorResponse(status: number, error: unknown, headers: Readonly<Record<string, string>>): Response {
  const kind = AgdxError.is(error) ? error.kind : 'invalid';
  const message = error instanceof Error ? error.message : String(error);
  return new Response(JSON.stringify({ error: { kind, message } }), {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

function readConversation(text: unknown): ConversationId {
  const conversation = typeof text === 'string' ? ConversationId.tryParse(text) : undefined;
  if (conversation === undefined) throw new InvalidError('threadId must be a conversation id (26 Crockford characters)', { context: { field: 'threadId' } });
  return conversation;
}

function tooLarge(): InvalidError {
  return new InvalidError(`request body exceeds ${MAX_BODY_BYTES} bytes`, { context: { field: 'body', cap: MAX_BODY_BYTES } });
}

/** The body as text, refusing more than {@link MAX_BODY_BYTES} before holding it all. */
async function readBoundedText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder('utf-8').decode(bytes);
}

async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await readBoundedText(request);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidError('the request body must be a JSON RunAgentInput', { context: { field: 'body' } });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidError('the request body must be a JSON RunAgentInput', { context: { field: 'body' } });
  return parsed as Record<string, unknown>;
}

function resumePoint(request: Request, url: URL, fromBody: unknown): EventPosition[] | undefined {
  const text = request.headers.get('last-event-id') ?? url.searchParams.get('after') ?? (typeof fromBody === 'string' ? fromBody : null);
  return text === null || text === '' ? undefined : parseEventIds(text);
}

async function parseRequest(request: Request): Promise<StreamRequest> {
  const url = new URL(request.url);
  if (request.method === 'GET') {
    const conversation = readConversation(url.searchParams.get('threadId') ?? url.searchParams.get('conversation'));
    return { conversation, after: resumePoint(request, url, undefined), run: undefined };
  }
  const input = await readJsonBody(request);
  const { threadId, runId, forwardedProps } = input;
  const conversation = readConversation(threadId);
  if (typeof runId !== 'string' || runId.length === 0) throw new InvalidError('runId must be a non-empty string', { context: { field: 'runId' } });
  const after = typeof forwardedProps === 'object' && forwardedProps !== null ? (forwardedProps as Record<string, unknown>)['after'] : undefined;
  return { conversation, after: resumePoint(request, url, after), run: { threadId: conversation.toString(), runId } };
}

async function* sseChunks(
  client: AgdxClient,
  addresses: readonly ConversationAddress[],
  parsed: StreamRequest,
  keepaliveMs: number,
  retryMs: number | undefined,
  signal: AbortSignal,
  onError: SkippedRecordHandler | undefined,
): AsyncGenerator<string, void, undefined> {
  const reporters = addresses.map((address) => unreadableStateReporter(address, onError));
  let unreadable = reporters[0];
  const converter = new AguiConverter({ onUnreadableState: (envelope) => unreadable?.report(envelope) });
  const framing =
    parsed.run !== undefined ? new RunFraming(parsed.run.threadId, parsed.run.runId, CorrelationId.tryParse(parsed.run.runId)?.toString()) : undefined;
  const after = parsed.after;
  // the last record delivered from each place; an event id carries them all
  const delivered: EventPosition[] = addresses.map((a, i) => ({ partition: a.partition, offset: after?.[i]?.offset ?? -1n }));
  yield sseComment('agdx agui') + (retryMs !== undefined ? `retry: ${retryMs}\n\n` : '');
  if (framing !== undefined) yield sseEvent(framing.started());
  // Records of other conversations on the partition wake the loop without producing anything;
  // the keepalive still goes out on time.
  let lastSent = Date.now();
  try {
    for await (const item of followConversation(client.transport, addresses, parsed.conversation, keepaliveMs, signal, onError)) {
      let chunk = '';
      if (item !== 'idle') {
        const { at, record } = item;
        // Earlier records are still converted: channels and the state fold depend on them.
        unreadable = reporters[at];
        if (unreadable !== undefined) unreadable.offset = record.offset;
        const converted = converter.convert(record.envelope);
        if (record.offset > (after?.[at]?.offset ?? -1n)) {
          const events: readonly AguiEvent[] = framing !== undefined ? framing.accept(converted, record.envelope).events : converted;
          delivered[at] = { partition: addresses[at]?.partition ?? 0, offset: record.offset };
          const id = formatEventIds(delivered);
          events.forEach((event, i) => {
            chunk += sseEvent(event, i === events.length - 1 ? id : undefined);
          });
        }
      }
      if (chunk.length === 0 && Date.now() - lastSent >= keepaliveMs) chunk = sseComment('keepalive');
      if (chunk.length > 0) {
        lastSent = Date.now();
        yield chunk;
      }
      if (framing?.done === true) return;
    }
  } catch (error) {
    if (signal.aborted) return;
    if (framing !== undefined) yield sseEvent(framing.fail(`the conversation could not be read: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/**
 * The live AG-UI endpoint over `client`'s log.
 *
 * - `POST` with an AG-UI `RunAgentInput` (`threadId` = the conversation's Crockford id, `runId`):
 *   the response is one AG-UI run, as `HttpAgent` requires. It opens with RUN_STARTED
 *   `{threadId, runId}`, streams the conversation's events and ends after the run's terminal
 *   event. When `runId` is a correlation id, that is the terminal status of that task;
 *   otherwise it is the first terminal status.
 * - `GET ?threadId=<conversation>` (for `EventSource`): every event of the conversation,
 *   following it until the client goes away.
 *
 * The conversation is read wherever the client's stream layout puts it (with a topic or a
 * partition per agent, the declared agents' topics or partitions too), merged in broker-time
 * order. Both start at the beginning of the conversation, or after the position in the
 * `Last-Event-ID` header (or `?after=`, or `forwardedProps.after`). Every event that ends a
 * record's events carries the position delivered so far as its SSE `id`: `<partition>:<offset>`
 * when the conversation lives in one place, one such pair per place joined by `,` otherwise
 * (`<partition>:-` for a place nothing came from yet; see `formatEventIds`).
 * New records are awaited with the transport's `waitFor`; an idle stream gets an SSE comment
 * every `keepaliveMs`. When the client disconnects (`request.signal`, or the body stream is
 * cancelled) the follow loop stops.
 *
 * A record the stream cannot use is skipped and reported to `options.onError` with its position;
 * the events of the records around it still arrive.
 *
 * Answers `OPTIONS` with 204 (add CORS headers through `headers`), and 400 (invalid request,
 * body over 1 MiB, a `Last-Event-ID` naming other places), 404 (unknown stream or topic), 405
 * (another method) and 409 (`layout-mismatch`: the log lacks a topic or partition the layout
 * declares) with a JSON
 * `{error: {kind, message}}` body.
 */
export function createAguiHandler(client: AgdxClient, options: AguiHandlerOptions = {}): AguiRequestHandler {
  const topic = options.topic ?? AgentTopic.Sessions;
  const keepaliveMs = options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
  if (!Number.isSafeInteger(keepaliveMs) || keepaliveMs < 1 || keepaliveMs > 2_147_483_647) {
    throw new InvalidError('keepaliveMs must be a positive integer of milliseconds', { context: { field: 'keepaliveMs' } });
  }
  const retryMs = options.retryMs;
  if (retryMs !== undefined && (!Number.isSafeInteger(retryMs) || retryMs < 0)) {
    throw new InvalidError('retryMs must be a non-negative integer of milliseconds', { context: { field: 'retryMs' } });
  }
  const extraHeaders = options.headers ?? {};
  return async (request: Request): Promise<Response> => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...extraHeaders, allow: 'GET, POST, OPTIONS' } });
    if (request.method !== 'GET' && request.method !== 'POST') {
      return new Response(null, { status: 405, headers: { ...extraHeaders, allow: 'GET, POST, OPTIONS' } });
    }
    let parsed: StreamRequest;
    try {
      parsed = await parseRequest(request);
    } catch (error) {
      return errorResponse(400, error, extraHeaders);
    }
    const stream = options.stream ?? client.defaultStream;
    if (stream === undefined) return errorResponse(500, new InvalidError('no stream: pass `stream` or give the client a default stream'), extraHeaders);
    let addresses: ConversationAddress[];
    try {
      addresses = await locateConversationEverywhere(client.transport, client.layout, stream, topic, parsed.conversation, request.signal);
    } catch (error) {
      const status = AgdxError.is(error, 'not-found') ? 404 : AgdxError.is(error, 'cancelled') ? 499 : AgdxError.is(error, LAYOUT_MISMATCH) ? 409 : 502;
      return errorResponse(status, error, extraHeaders);
    }
    const after = parsed.after;
    if (after !== undefined && (after.length !== addresses.length || after.some((p, i) => p.partition !== addresses[i]?.partition))) {
      return errorResponse(400, new InvalidError('Last-Event-ID names other partitions than this conversation’s', { context: { field: 'Last-Event-ID' } }), extraHeaders);
    }
    const stop = new AbortController();
    const signal = AbortSignal.any([request.signal, stop.signal]);
    const chunks = sseChunks(client, addresses, parsed, keepaliveMs, retryMs, signal, options.onError);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      cancel() {
        stop.abort();
        void chunks.return(undefined).catch(() => undefined);
      },
    });
    return new Response(body, {
      status: 200,
      headers: { ...extraHeaders, 'content-type': SSE_CONTENT_TYPE, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    });
  };
}
