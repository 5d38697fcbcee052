/**
 * Call-site helpers that keep a misbehaving telemetry hook from changing delivery: a hook that
 * throws is treated as absent, and the SDK's own errors always win over the hook's.
 */
import type { RecordHeaders, TokenUsage } from '@agdx/wire';
import type { AgentMessage, MessagePosition } from '../message/agent-message.js';
import type { PendingReply } from '../replies/reply-hub.js';
import type { AgdxTelemetry, ChunkStreamEvent, ChunkStreamSpan, HandleEvent, HandleSpan, SendEvent, SendSpan, ServeSpan, WaitEvent, WaitSpan } from './agdx-telemetry.js';
import { withTelemetryHeaders } from './telemetry-headers.js';

/** What `call` returns, or `undefined` when it throws: a failing hook counts as absent. */
export function guarded<T>(call: () => T | undefined): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}

// The start helpers below catch inline rather than through `guarded`: they run per record, and a
// closure per call is measurable on the no-op path.

/** Starts a send span, or `undefined` when the hook is absent or throws. */
export function startSend(telemetry: AgdxTelemetry, event: SendEvent): SendSpan | undefined {
  try {
    return telemetry.onSend(event);
  } catch {
    return undefined;
  }
}

/** The record headers with the span's headers added (the block itself when the span adds none). */
export function sendHeaders(span: SendSpan | ChunkStreamSpan | undefined, headers: RecordHeaders): RecordHeaders {
  const extra = span?.headers;
  return extra === undefined || extra.length === 0 ? headers : withTelemetryHeaders(headers, extra);
}

/** Ends a send span, swallowing the hook's errors. */
export function endSend(span: SendSpan | undefined, position: MessagePosition | undefined, error?: unknown): void {
  try {
    span?.end(position, error);
  } catch {
    // An observer's failure never changes what the send reports.
  }
}

/**
 * Runs `append` inside a send span: starts it, adds its headers, ends it with the position or
 * the error (which is rethrown unchanged).
 */
export function tracedAppend<P extends MessagePosition>(
  telemetry: AgdxTelemetry | undefined,
  event: SendEvent,
  headers: RecordHeaders,
  append: (headers: RecordHeaders) => Promise<P>,
): Promise<P> {
  const span = telemetry === undefined ? undefined : startSend(telemetry, event);
  // Without a span the append is returned as it is: no extra async frame on the plain path.
  return span === undefined ? append(headers) : appendInSpan(span, headers, append);
}

async function appendInSpan<P extends MessagePosition>(span: SendSpan, headers: RecordHeaders, append: (headers: RecordHeaders) => Promise<P>): Promise<P> {
  let position: P;
  try {
    position = await append(sendHeaders(span, headers));
  } catch (error) {
    endSend(span, undefined, error);
    throw error;
  }
  endSend(span, position);
  return position;
}

/** Starts a handle span, or `undefined` when the hook is absent or throws. */
export function startHandle(telemetry: AgdxTelemetry | undefined, event: HandleEvent): HandleSpan | undefined {
  if (telemetry === undefined) return undefined;
  try {
    return telemetry.onHandle(event);
  } catch {
    return undefined;
  }
}

/** Runs `work` inside a span's context when there is one (a hook failing to enter it runs `work` plainly). */
export function runIn<T>(span: HandleSpan | WaitSpan | ServeSpan | undefined, work: () => Promise<T>): Promise<T> {
  if (span === undefined) return work();
  let entered = false;
  try {
    return span.run(() => {
      entered = true;
      return work();
    });
  } catch (error) {
    // The hook threw before running the work: run it without the span. Once entered, the error is the work's own.
    if (entered) throw error;
    return work();
  }
}

/** Ends a handle span, swallowing the hook's errors. */
export function endHandle(span: HandleSpan | undefined, outcome: Parameters<HandleSpan['end']>[0], error?: unknown): void {
  try {
    span?.end(outcome, error);
  } catch {
    // observers never change the outcome
  }
}

/**
 * Sends a request and waits for its answer, inside a wait span when a hook is installed: the
 * send runs in the span's context; a failed send cancels the wait and rethrows, a sent one tells
 * the wait so (`pending.sent()`). The wait settles the call even while the append is still
 * unacknowledged: its timeout and signal bound the whole call (a hung append must not outlast
 * them), and a reply proves the request was stored.
 */
export function sendAndWait(
  telemetry: AgdxTelemetry | undefined,
  event: () => WaitEvent,
  send: () => Promise<unknown>,
  pending: PendingReply,
): Promise<AgentMessage> {
  const span = telemetry === undefined ? undefined : startWait(telemetry, event);
  return span === undefined ? publishAndWait(send, pending) : waitInSpan(span, send, pending);
}

function startWait(telemetry: AgdxTelemetry, event: () => WaitEvent): WaitSpan | undefined {
  try {
    return telemetry.onWait(event());
  } catch {
    return undefined;
  }
}

/**
 * Starts the send and returns the answer: the reply, or the wait's TimeoutError /
 * CancelledError, whichever comes first, or the send's own failure, which cancels the wait (the
 * CancelledError that causes is replaced by the send's error). A send that fails after the wait
 * settled changes nothing. Only the wait's own promise chain: no race, no promise of its own per
 * request.
 */
function publishAndWait(send: () => Promise<unknown>, pending: PendingReply): Promise<AgentMessage> {
  let failed = false;
  let sendError: unknown;
  let sending: Promise<unknown>;
  try {
    sending = send();
  } catch (error) {
    sending = Promise.reject(error);
  }
  sending.then(
    () => pending.sent(),
    (error: unknown) => {
      failed = true;
      sendError = error;
      pending.cancel();
    },
  );
  return pending.reply.catch((error: unknown) => {
    throw failed ? sendError : error;
  });
}

async function waitInSpan(span: WaitSpan, send: () => Promise<unknown>, pending: PendingReply): Promise<AgentMessage> {
  let answer: AgentMessage;
  try {
    // An object, so the span's run does not await the answer as if it were the send.
    const started = await runIn(span, () => Promise.resolve({ answer: publishAndWait(send, pending) }));
    answer = await started.answer;
  } catch (error) {
    endWait(span, undefined, error);
    throw error;
  }
  endWait(span, answer);
  return answer;
}

function endWait(span: WaitSpan | undefined, reply: AgentMessage | undefined, error?: unknown): void {
  try {
    span?.end(reply, error);
  } catch {
    // observers never change the answer
  }
}

/** Starts a chunk-stream span, or `undefined` when the hook is absent or throws. */
export function startChunkStream(telemetry: AgdxTelemetry | undefined, event: ChunkStreamEvent): ChunkStreamSpan | undefined {
  if (telemetry === undefined) return undefined;
  try {
    return telemetry.onChunkStream(event);
  } catch {
    return undefined;
  }
}

/** Reports an append of a chunk stream, swallowing the hook's errors. */
export function chunksAppended(span: ChunkStreamSpan | undefined, count: number): void {
  try {
    span?.appended(count);
  } catch {
    // observers never change the stream
  }
}

/** Ends a chunk-stream span, swallowing the hook's errors. */
export function endChunkStream(span: ChunkStreamSpan | undefined, finishReason: string | undefined, usage: TokenUsage | undefined, error?: unknown): void {
  try {
    span?.end(finishReason, usage, error);
  } catch {
    // observers never change the stream
  }
}
