/**
 * The live endpoint: a web-standard `(Request) => Promise<Response>` streaming a conversation's
 * AG-UI events as Server-Sent Events, following new records as they land.
 */

import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { AgentTopic, LayoutMismatchError, RejectedError, traceServeStream, type AgdxClient, type ServeStreamTrace } from '@agdx/agents';
import { parseWith, reserveEventStream } from '@agdx/bridge-kit';
import { layoutFingerprint, StaleSessionError } from '@agdx/sessions';
import { AgdxError, AgentId, ConversationId, CorrelationId, InvalidError, type SkippedRecordHandler } from '@agdx/wire';
import { anyArrival, locateConversationEverywhere, type ConversationAddress } from './conversation-log.js';
import { ReplayCache, type ConversationReplay, type ReplayContext, type ReplayEntry, type ReplayMode, type ReplayView } from './conversation-replay.js';
import { RunFraming } from './run-framing.js';
import { formatEventIds, parseEventIds, SSE_CONTENT_TYPE, sseComment, sseEvent, type EventPosition } from './sse.js';
import { turnStartOfFacts } from './turn.js';
import { startRun, userInputOf, type AguiRunStart, type UserInput } from './run-start.js';
import { TracedEvents } from './traced-events.js';

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
  /**
   * How long a POST run may wait for its turn to end, in ms (default
   * {@link DEFAULT_RUN_TIMEOUT_MS}); then it ends with RUN_ERROR `{code: "timeout"}`.
   */
  readonly runTimeoutMs?: number | undefined;
  /**
   * With it, a POST whose last message is the user's publishes that message as a command of the
   * conversation (from `source`, to `target`, on `topic`, default the topic read), and the run
   * follows that command's turn: RUN_FINISHED when it is answered, RUN_ERROR on an error. Without
   * it the endpoint only reads the log.
   */
  readonly startRuns?: AguiRunStart | undefined;
  /**
   * Opt-in (default off): adds the `agdx.*` CUSTOM events (the user's input, agents' commands,
   * plain replies, human input, the current turn's status; see `AgdxCustomEventName`) that the
   * reference mapping drops, and a GET stream also reads the conversation on `agent.human_input`
   * (merged in broker-time order) so approvals and human answers show. POST runs read only
   * `topic`, so a run's turn is never a human-input prompt. The live page turns it on. Such a
   * handler neither reads nor writes fold snapshots (their image has no `agdx.*` turn state).
   */
  readonly agdxEvents?: boolean | undefined;
  /**
   * Whether a thread not yet read by this handler starts from its newest AG-UI fold snapshot on
   * `agui.snapshots` instead of offset 0 (default true). See the README's "Fold snapshots".
   */
  readonly snapshots?: boolean | undefined;
  /** Write a fold snapshot of a thread after a read that folded at least this many of its records since the last (default: never). */
  readonly snapshotEvery?: number | undefined;
}

/** Default bound of one POST run: 5 minutes. */
export const DEFAULT_RUN_TIMEOUT_MS: number = 300_000;

/** A web-standard request handler. */
export type AguiRequestHandler = (request: Request) => Promise<Response>;

const DEFAULT_KEEPALIVE_MS = 15_000;
const LAYOUT_MISMATCH = LayoutMismatchError.KIND;
const MAX_BODY_BYTES = 1024 * 1024;
const TOO_MANY_STREAMS = 'too many open streams from this client; retry later';
// The body is JSON: the default decoder drops one leading byte order mark, as Request.json()
// does, so a client that writes one is not refused. Not streaming, so one decoder serves all.
const requestText = new TextDecoder('utf-8');

interface StreamRequest {
  readonly conversation: ConversationId;
  readonly after: readonly EventPosition[] | undefined;
  readonly run: { readonly threadId: string; readonly runId: string; readonly input: UserInput | undefined } | undefined;
}

function errorResponse(status: number, error: unknown, headers: Readonly<Record<string, string>>): Response {
  const kind = AgdxError.is(error) ? error.kind : 'invalid';
  const message = error instanceof Error ? error.message : String(error);
  return new Response(JSON.stringify({ error: { kind, message } }), {
    status,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

/**
 * Checks a `snapshotEvery` setting.
 * @throws InvalidError unless it is a positive safe integer (or undefined).
 */
export function checkSnapshotEvery(every: number | undefined): void {
  if (every !== undefined && (!Number.isSafeInteger(every) || every < 1)) throw new InvalidError('snapshotEvery must be a positive integer of records', { context: { field: 'snapshotEvery' } });
}

/** The HTTP status of a failure to read the log before a response began. */
function readFailureStatus(error: unknown): number {
  return AgdxError.is(error, 'not-found') ? 404 : AgdxError.is(error, 'cancelled') ? 499 : AgdxError.is(error, LAYOUT_MISMATCH) ? 409 : 502;
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
  return requestText.decode(bytes);
}

async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readBoundedText(request);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidError('the request body must be a JSON RunAgentInput', { context: { field: 'body' } });
  }
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
  // The official AG-UI schema: what HttpAgent sends, checked member by member.
  const input = parseWith(RunAgentInputSchema, await readJsonBody(request), 'RunAgentInput');
  const { threadId, runId, forwardedProps } = input;
  const conversation = readConversation(threadId);
  if (runId.length === 0) throw new InvalidError('runId must be a non-empty string', { context: { field: 'runId' } });
  const after = typeof forwardedProps === 'object' && forwardedProps !== null ? (forwardedProps as Record<string, unknown>)['after'] : undefined;
  return { conversation, after: resumePoint(request, url, after), run: { threadId: conversation.toString(), runId, input: userInputOf(input.messages) } };
}

/** Everything one streamed response reads through. */
interface StreamSource {
  readonly transport: AgdxClient['transport'];
  readonly replay: ConversationReplay;
  readonly context: ReplayContext;
  readonly addresses: readonly ConversationAddress[];
  /** Where the replay stood when the request came (read before the response began). */
  readonly view: ReplayView;
}

/** The thread's topic was recreated while a response followed it; the client reconnects and starts over. */
function restarted(): StaleSessionError {
  return new StaleSessionError('the conversation was read again from its start while it was followed (a topic was recreated); reconnect');
}

async function* sseChunks(
  source: StreamSource,
  parsed: StreamRequest,
  keepaliveMs: number,
  retryMs: number | undefined,
  signal: AbortSignal,
  runTimeoutMs: number,
  started: CorrelationId | undefined,
  traced: TracedEvents,
): AsyncGenerator<string, void, undefined> {
  const { transport, replay, context, addresses } = source;
  let view = source.view;
  // A run's own deadline; the client going away still stops everything through `signal`.
  const deadline = parsed.run !== undefined ? AbortSignal.timeout(runTimeoutMs) : undefined;
  const follow = deadline !== undefined ? AbortSignal.any([signal, deadline]) : signal;
  const after = parsed.after;
  // the last record delivered from each place; an event id carries them all
  const delivered: EventPosition[] = addresses.map((a, i) => ({ partition: a.partition, offset: after?.[i]?.offset ?? -1n }));
  // The thread's history when the request came: a run's turn that ended in it ends the run only
  // once all of it has been replayed.
  const history = view.count;
  const entries = view.entries;
  let framing: RunFraming | undefined;
  yield sseComment('agdx agui') + (retryMs !== undefined ? `retry: ${retryMs}\n\n` : '');
  if (parsed.run !== undefined) {
    const follows = started?.toString() ?? CorrelationId.tryParse(parsed.run.runId)?.toString();
    framing = new RunFraming(parsed.run.threadId, parsed.run.runId, follows, turnStartOfFacts(entries.slice(0, history).map((e) => e.turn)));
    const opening = framing.started();
    traced.sent([opening]);
    yield sseEvent(opening);
  }
  // Records of other conversations on the partition wake the loop without producing anything;
  // the keepalive still goes out on time.
  let lastSent = Date.now();
  let index = 0;
  try {
    for (;;) {
      while (index < view.count) {
        const entry = entries[index] as ReplayEntry;
        const caughtUp = index >= history - 1;
        index++;
        // Records up to the resume point send nothing of their own, but may end the run's turn.
        const beyond = entry.offset > (after?.[entry.at]?.offset ?? -1n);
        const fresh = beyond ? entry.events : [];
        const events = framing !== undefined ? framing.acceptFacts(fresh, entry.turn, caughtUp).events : fresh;
        if (beyond) delivered[entry.at] = { partition: addresses[entry.at]?.partition ?? 0, offset: entry.offset };
        if (events.length > 0) {
          const id = formatEventIds(delivered);
          lastSent = Date.now();
          traced.sent(events);
          yield events.map((event, i) => sseEvent(event, i === events.length - 1 ? id : undefined)).join('');
        }
        if (framing?.done === true) {
          traced.finished();
          return;
        }
      }
      const arrived = await anyArrival(transport, addresses, view.next, keepaliveMs, follow);
      // the wait ends quietly on abort; the read below then throws the transport's CancelledError
      if (arrived || follow.aborted) {
        view = await replay.advance(context, addresses, follow);
        if (view.epoch !== source.view.epoch || view.entries !== entries) throw restarted();
      }
      if (index >= view.count && Date.now() - lastSent >= keepaliveMs) {
        lastSent = Date.now();
        yield sseComment('keepalive');
      }
    }
  } catch (error) {
    if (signal.aborted) {
      traced.disconnected();
      return;
    }
    if (framing === undefined) {
      traced.failed(error);
      return;
    }
    const failed =
      deadline?.aborted === true
        ? framing.fail(`the run's turn did not end within ${runTimeoutMs} ms`, 'timeout')
        : framing.fail(`the conversation could not be read: ${error instanceof Error ? error.message : String(error)}`);
    traced.sent(failed);
    yield failed.map((event) => sseEvent(event)).join('');
    traced.finished();
  }
}

/**
 * The serve trace of one parsed request: `agui run` (a POST run, speaking as `startRuns.source`)
 * or `agui follow` (a GET stream, which speaks as nobody), in the request's thread.
 */
function traceLiveRequest(client: AgdxClient, startRuns: AguiRunStart | undefined, parsed: StreamRequest): ServeStreamTrace {
  const run = parsed.run !== undefined;
  return traceServeStream(client.telemetry, () => ({
    protocol: 'agui',
    method: run ? 'run' : 'follow',
    agent: run && startRuns !== undefined ? (typeof startRuns.source === 'string' ? AgentId.new(startRuns.source) : startRuns.source) : undefined,
    conversation: parsed.conversation,
  }));
}

/** Where the conversation's human input lives; none when the log has no human-input topic. */
async function humanInputAddresses(client: AgdxClient, stream: string, conversation: ConversationId, signal: AbortSignal): Promise<ConversationAddress[]> {
  try {
    return await locateConversationEverywhere(client.transport, client.layout, stream, AgentTopic.HumanInput, conversation, signal);
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) return [];
    throw error;
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
 * (another method), 409 (`layout-mismatch`: the log lacks a topic or partition the layout
 * declares) and 429 (behind `@agdx/bridge-kit/node`, a client already holding its limit of open
 * streams; refused before anything is read or published, with `Retry-After: 1`) with a JSON
 * `{error: {kind, message}}` body.
 */
export function createAguiHandler(client: AgdxClient, options: AguiHandlerOptions = {}): AguiRequestHandler {
  return buildAguiHandler(client, options, new ReplayCache());
}

/** {@link createAguiHandler} over the given kept replays (a bridge shares its own). */
export function buildAguiHandler(client: AgdxClient, options: AguiHandlerOptions, replays: ReplayCache): AguiRequestHandler {
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
  const layout = layoutFingerprint(client.layout);
  checkSnapshotEvery(options.snapshotEvery);
  const runTimeoutMs = options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  if (!Number.isSafeInteger(runTimeoutMs) || runTimeoutMs < 1 || runTimeoutMs > 2_147_483_647) {
    throw new InvalidError('runTimeoutMs must be a positive integer of milliseconds', { context: { field: 'runTimeoutMs' } });
  }
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
    // From here on the request is one served call: its span lasts until the stream ends.
    const trace = traceLiveRequest(client, options.startRuns, parsed);
    const refuse = (status: number, error: unknown): Response => {
      trace.end('failed', { message: error instanceof Error ? error.message : String(error) });
      return errorResponse(status, error, extraHeaders);
    };
    // Every answer from here on is an event stream, whatever the Accept header said: its slot is
    // taken before any work (reading the log, publishing a run's command), so a client at the
    // node adapter's limit of open streams is refused with nothing started.
    if (!reserveEventStream(request)) {
      trace.end('failed', { message: TOO_MANY_STREAMS });
      return errorResponse(429, new RejectedError(TOO_MANY_STREAMS), { ...extraHeaders, 'retry-after': '1' });
    }
    const stream = options.stream ?? client.defaultStream;
    if (stream === undefined) return refuse(500, new InvalidError('no stream: pass `stream` or give the client a default stream'));
    const agdx = options.agdxEvents === true;
    let addresses: ConversationAddress[];
    let humanInput: ConversationAddress[] = [];
    try {
      addresses = await locateConversationEverywhere(client.transport, client.layout, stream, topic, parsed.conversation, request.signal);
      if (agdx && parsed.run === undefined && topic !== AgentTopic.HumanInput) {
        humanInput = await humanInputAddresses(client, stream, parsed.conversation, request.signal);
        addresses.push(...humanInput);
      }
    } catch (error) {
      return refuse(readFailureStatus(error), error);
    }
    const after = parsed.after;
    if (after !== undefined && (after.length !== addresses.length || after.some((p, i) => p.partition !== addresses[i]?.partition))) {
      return refuse(400, new InvalidError('Last-Event-ID names other partitions than this conversation’s', { context: { field: 'Last-Event-ID' } }));
    }
    const stop = new AbortController();
    const signal = AbortSignal.any([request.signal, stop.signal]);
    let started: CorrelationId | undefined;
    const startRuns = options.startRuns;
    const input = parsed.run?.input;
    if (startRuns !== undefined && input !== undefined) {
      try {
        // Inside the call's span: the command's send, and so the answering agent's handling, are its children.
        started = await trace.run(() => startRun(client, startRuns, topic, parsed.conversation, input, request.signal));
      } catch (error) {
        const status = AgdxError.is(error, 'invalid') ? 400 : AgdxError.is(error, 'cancelled') ? 499 : 502;
        return refuse(status, error);
      }
    }
    // Read what is new since the thread was last read (by any request or aguiEvents call sharing
    // the kept replay) before answering, so a read failure is an HTTP status, not a broken stream.
    // The agdx.* events and the human-input places make another replay of the same thread; its
    // converter keeps turn state a fold snapshot does not hold, so it neither reads nor writes them.
    const mode: ReplayMode = !agdx ? 'reference' : humanInput.length > 0 ? 'agdx-with-human-input' : 'agdx';
    const replay = replays.get(stream, topic, parsed.conversation, mode);
    const snapshots = agdx ? undefined : { stream, layout, read: options.snapshots !== false, every: options.snapshotEvery };
    const context: ReplayContext = { transport: client.transport, layout: client.layout, onError: options.onError, snapshots };
    let view: ReplayView;
    try {
      view = await replay.advance(context, addresses, request.signal);
    } catch (error) {
      return refuse(readFailureStatus(error), error);
    }
    const source: StreamSource = { transport: client.transport, replay, context, addresses, view };
    const traced = new TracedEvents(trace);
    const chunks = sseChunks(source, parsed, keepaliveMs, retryMs, signal, runTimeoutMs, started, traced);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      cancel() {
        traced.disconnected();
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
