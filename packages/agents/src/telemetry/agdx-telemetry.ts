/**
 * The telemetry hook the client and the agent runtime call when one is installed. It is
 * vendor-neutral on purpose: `@agdx/agents` stays free of any tracing library, and an
 * implementation such as `@agdx/otel` turns these calls into spans and metrics. With no hook
 * installed every call site costs one `undefined` check.
 */
import type { AgentEnvelope, AgentId, ConversationId, CorrelationId, TokenUsage } from '@agdx/wire';
import type { RecordAddress } from '../agent/log-position.js';
import type { RecordOutcome } from '../agent/record-pipeline.js';
import type { AgentMessage, MessagePosition } from '../message/agent-message.js';

/** One envelope about to be appended. */
export interface SendEvent {
  /** The envelope exactly as it will be published. */
  readonly envelope: AgentEnvelope;
  /** Its AGDX content type code. */
  readonly contentType: number;
  /** Target stream. */
  readonly stream: string;
  /** Target topic (before layout routing). */
  readonly topic: string;
}

/** The hook's handle on one send; `end` is called exactly once. */
export interface SendSpan {
  /**
   * String headers to add to the record (for example W3C `traceparent`). Keys the header block
   * already holds are never overwritten, and a pair breaking Iggy's header rules is dropped.
   */
  readonly headers?: ReadonlyArray<readonly [string, string]> | undefined;
  /** The append finished: with its position, or with the error it failed with. */
  end(position: MessagePosition | undefined, error?: unknown): void;
}

/** One record an agent is about to handle (it passed decode, dispatch, verification, pause and dedup). */
export interface HandleEvent {
  /** The handling agent. */
  readonly agent: AgentId;
  /** The record as the handler sees it (headers included). */
  readonly message: AgentMessage;
  /** Where it was read. */
  readonly address: RecordAddress;
}

/** The hook's handle on one handled record; `end` is called exactly once. */
export interface HandleSpan {
  /** Runs one handler attempt inside the span's context, so work the handler starts is its child. */
  run<T>(attempt: () => Promise<T>): Promise<T>;
  /** The record's outcome, with the last handler error when it was dead-lettered. */
  end(outcome: RecordOutcome, error?: unknown): void;
}

/** A correlated wait: `request` (request to reply) or `input` (a human-input prompt). */
export interface WaitEvent {
  /** Which wait. */
  readonly kind: 'request' | 'input';
  /** The waiting agent. */
  readonly requester: AgentId;
  /** The agent asked, when known. */
  readonly target: AgentId | undefined;
  /** The session. */
  readonly conversation: ConversationId;
  /** The correlation the answer must carry. */
  readonly correlation: CorrelationId;
}

/** The hook's handle on one wait; `end` is called exactly once. */
export interface WaitSpan {
  /** Runs the send of the request inside the wait's context. */
  run<T>(send: () => Promise<T>): Promise<T>;
  /** The answer arrived, or the wait failed (timeout, cancel, publish failure). */
  end(reply: AgentMessage | undefined, error?: unknown): void;
}

/** A record an agent dead-lettered. */
export interface DeadLetterEvent {
  /** The agent that gave up on it. */
  readonly agent: AgentId;
  /** The record, when it could be decoded. */
  readonly message: AgentMessage | undefined;
  /** Where it was read. */
  readonly address: RecordAddress;
  /** The wire `DeadLetterReason` code. */
  readonly reason: number;
}

/** A chunk stream opening (its first chunk, which carries the purpose as its operation). */
export interface ChunkStreamEvent {
  /** The opening chunk as it will be published. */
  readonly opening: AgentEnvelope;
  /** Target stream. */
  readonly stream: string;
  /** Target topic (before layout routing). */
  readonly topic: string;
}

/** The hook's handle on one chunk stream: one span for the whole stream, not one per chunk. */
export interface ChunkStreamSpan {
  /** String headers every record of the stream carries (see {@link SendSpan.headers}). */
  readonly headers?: ReadonlyArray<readonly [string, string]> | undefined;
  /** One append of `count` records of the stream succeeded. */
  appended(count: number): void;
  /** The stream ended: finished (with its finish reason and usage) or failed with `error`. */
  end(finishReason: string | undefined, usage: TokenUsage | undefined, error?: unknown): void;
}

/** One call a bridge serves (an A2A, MCP or AG-UI request), reported before it runs. */
export interface ServeEvent {
  /** The protocol served, for example `a2a`, `mcp` or `agui`. */
  readonly protocol: string;
  /** The method or route, for example `SendMessage`, `tools/call` or `run`. */
  readonly method: string;
  /** The agent the bridge speaks as; none for a read-only stream that speaks as nobody (an AG-UI GET follow without `startRuns`). */
  readonly agent?: AgentId | undefined;
  /** The session, when the request names one (a task id, a thread id). */
  readonly conversation?: ConversationId | undefined;
}

/** How a served call failed: the protocol's error code (a JSON-RPC code) and its public message. */
export interface ServeFailure {
  /** The protocol's error code, when it has one. */
  readonly code?: number | undefined;
  /** The public message sent back to the caller. */
  readonly message: string;
}

/**
 * How a call answered with a stream (Server-Sent Events) ended: `completed` (its last event was
 * sent: RUN_FINISHED, a task's final status), `failed` (it ended with an error event such as
 * RUN_ERROR or a JSON-RPC error, or could not go on), `disconnected` (the client went away or
 * the request was aborted first).
 */
export type ServeStreamEnd = 'completed' | 'failed' | 'disconnected';

/** What a streamed answer sent, reported when it ends. */
export interface ServeStreamSummary {
  /** How it ended. */
  readonly reason: ServeStreamEnd;
  /** Events sent to the client (SSE frames carrying data; comments and keepalives not counted). */
  readonly events: number;
  /** The events by type (AG-UI event type, A2A frame kind); bounded, the rest count as `other`. */
  readonly eventTypes: ReadonlyMap<string, number>;
  /** When the first event was sent, in milliseconds since the epoch (`performance.timeOrigin` based). */
  readonly firstEventAt: number | undefined;
}

/** The hook's handle on one served call; `end` is called exactly once. */
export interface ServeSpan {
  /** Runs the call inside the span's context, so sends made while serving it are its children. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The call was answered: with `failure` when the answer is an error; `conversation` is the
   * session the call created or named, when the event did not know it yet (a new A2A task).
   * A call answered with a stream ends when the stream does, with `stream` telling how.
   */
  end(failure: ServeFailure | undefined, conversation?: string | undefined, stream?: ServeStreamSummary | undefined): void;
}

/** One session operation of `@agdx/sessions`, reported before it runs. */
export interface SessionEvent {
  /** Which operation: a turn `append`, a `context` read, a `checkpoint` capture. */
  readonly operation: 'append' | 'context' | 'checkpoint';
  /** The session. */
  readonly conversation: ConversationId;
  /** The turn topic an append writes to. */
  readonly topic?: string | undefined;
}

/** The hook's handle on one session operation; `end` is called exactly once. */
export interface SessionSpan {
  /**
   * String headers a turn append adds to its record (W3C `traceparent`, for example), on the
   * same terms as {@link SendSpan.headers}; ignored by reads.
   */
  readonly headers?: ReadonlyArray<readonly [string, string]> | undefined;
  /** The operation finished, or failed with `error`. */
  end(error?: unknown): void;
}

/**
 * What a telemetry implementation provides. Every method may return `undefined` to ignore the
 * event. The SDK never lets a hook's exception change what happens to a record: calls are
 * guarded, and a throwing hook is treated as returning `undefined`.
 */
export interface AgdxTelemetry {
  /** Called before every envelope append (sends, publishes, replies, chunk batches). */
  onSend(event: SendEvent): SendSpan | undefined;
  /** Called when a chunk writer publishes its first chunk. */
  onChunkStream(event: ChunkStreamEvent): ChunkStreamSpan | undefined;
  /** Called before an agent runs its handler on a record. */
  onHandle(event: HandleEvent): HandleSpan | undefined;
  /** Called when a correlated wait starts, before its request is sent. */
  onWait(event: WaitEvent): WaitSpan | undefined;
  /** Called after a record was dead-lettered (or the attempt to write the letter failed). */
  onDeadLetter(event: DeadLetterEvent): void;
  /** Called when a bridge starts serving a call (optional: a hook without it sees no bridge calls). */
  onServe?(event: ServeEvent): ServeSpan | undefined;
  /** Called when a session operation starts (optional: a hook without it sees no session operations). */
  onSession?(event: SessionEvent): SessionSpan | undefined;
}
