/**
 * The AG-UI events this package produces, typed locally so the package needs no AG-UI runtime
 * dependency. Field names follow `@ag-ui/core` 1.0; the tests validate every produced event
 * against its zod schemas.
 */

import type { JsonPatchOperation, JsonValue } from '@agdx/wire';

/**
 * The AG-UI event types that have an AGDX source (no MESSAGES_SNAPSHOT, ACTIVITY_* or RAW;
 * CUSTOM only with the converter's opt-in `agdxEvents`).
 */
export const AguiEventType: {
  readonly RunStarted: 'RUN_STARTED';
  readonly RunFinished: 'RUN_FINISHED';
  readonly RunError: 'RUN_ERROR';
  readonly TextMessageStart: 'TEXT_MESSAGE_START';
  readonly TextMessageContent: 'TEXT_MESSAGE_CONTENT';
  readonly TextMessageEnd: 'TEXT_MESSAGE_END';
  readonly ReasoningMessageStart: 'REASONING_MESSAGE_START';
  readonly ReasoningMessageContent: 'REASONING_MESSAGE_CONTENT';
  readonly ReasoningMessageEnd: 'REASONING_MESSAGE_END';
  readonly ToolCallStart: 'TOOL_CALL_START';
  readonly ToolCallArgs: 'TOOL_CALL_ARGS';
  readonly ToolCallEnd: 'TOOL_CALL_END';
  readonly ToolCallResult: 'TOOL_CALL_RESULT';
  readonly StateSnapshot: 'STATE_SNAPSHOT';
  readonly StateDelta: 'STATE_DELTA';
  readonly Custom: 'CUSTOM';
} = Object.freeze({
  RunStarted: 'RUN_STARTED',
  RunFinished: 'RUN_FINISHED',
  RunError: 'RUN_ERROR',
  TextMessageStart: 'TEXT_MESSAGE_START',
  TextMessageContent: 'TEXT_MESSAGE_CONTENT',
  TextMessageEnd: 'TEXT_MESSAGE_END',
  ReasoningMessageStart: 'REASONING_MESSAGE_START',
  ReasoningMessageContent: 'REASONING_MESSAGE_CONTENT',
  ReasoningMessageEnd: 'REASONING_MESSAGE_END',
  ToolCallStart: 'TOOL_CALL_START',
  ToolCallArgs: 'TOOL_CALL_ARGS',
  ToolCallEnd: 'TOOL_CALL_END',
  ToolCallResult: 'TOOL_CALL_RESULT',
  StateSnapshot: 'STATE_SNAPSHOT',
  StateDelta: 'STATE_DELTA',
  Custom: 'CUSTOM',
});

/** One of the AG-UI event type names this package produces. */
export type AguiEventType = (typeof AguiEventType)[keyof typeof AguiEventType];

/** `RUN_STARTED`: a task was submitted (threadId = conversation, runId = correlation). */
export interface RunStartedEvent {
  readonly type: 'RUN_STARTED';
  readonly threadId: string;
  readonly runId: string;
}
/** `RUN_FINISHED`: a task completed or was canceled. */
export interface RunFinishedEvent {
  readonly type: 'RUN_FINISHED';
  readonly threadId: string;
  readonly runId: string;
}
/** `RUN_ERROR`: a task failed or was rejected, or an error record without a tool. */
export interface RunErrorEvent {
  readonly type: 'RUN_ERROR';
  readonly message: string;
  /** A stable reason code where the bridge has one (`timeout` for a run that timed out). */
  readonly code?: string;
}
/** `TEXT_MESSAGE_START`: a chat chunk channel opened (messageId = channel). */
export interface TextMessageStartEvent {
  readonly type: 'TEXT_MESSAGE_START';
  readonly messageId: string;
  readonly role: 'assistant';
}
/** `TEXT_MESSAGE_CONTENT`: text of a chat chunk. */
export interface TextMessageContentEvent {
  readonly type: 'TEXT_MESSAGE_CONTENT';
  readonly messageId: string;
  readonly delta: string;
}
/** `TEXT_MESSAGE_END`: the last chat chunk of a channel. */
export interface TextMessageEndEvent {
  readonly type: 'TEXT_MESSAGE_END';
  readonly messageId: string;
}
/** `REASONING_MESSAGE_START`: a reasoning chunk channel opened. */
export interface ReasoningMessageStartEvent {
  readonly type: 'REASONING_MESSAGE_START';
  readonly messageId: string;
  readonly role: 'reasoning';
}
/** `REASONING_MESSAGE_CONTENT`: text of a reasoning chunk. */
export interface ReasoningMessageContentEvent {
  readonly type: 'REASONING_MESSAGE_CONTENT';
  readonly messageId: string;
  readonly delta: string;
}
/** `REASONING_MESSAGE_END`: the last reasoning chunk of a channel. */
export interface ReasoningMessageEndEvent {
  readonly type: 'REASONING_MESSAGE_END';
  readonly messageId: string;
}
/** `TOOL_CALL_START`: a `tool_args` chunk channel opened (toolCallId = channel). */
export interface ToolCallStartEvent {
  readonly type: 'TOOL_CALL_START';
  readonly toolCallId: string;
  readonly toolCallName: string;
}
/** `TOOL_CALL_ARGS`: argument text of a `tool_args` chunk. */
export interface ToolCallArgsEvent {
  readonly type: 'TOOL_CALL_ARGS';
  readonly toolCallId: string;
  readonly delta: string;
}
/** `TOOL_CALL_END`: the last `tool_args` chunk of a channel. */
export interface ToolCallEndEvent {
  readonly type: 'TOOL_CALL_END';
  readonly toolCallId: string;
}
/** `TOOL_CALL_RESULT`: a response or error that names a tool (toolCallId = the tool-argument stream its correlation opened, else the correlation). */
export interface ToolCallResultEvent {
  readonly type: 'TOOL_CALL_RESULT';
  readonly messageId: string;
  readonly toolCallId: string;
  readonly content: string;
}
/** `STATE_SNAPSHOT`: the whole shared state document. */
export interface StateSnapshotEvent {
  readonly type: 'STATE_SNAPSHOT';
  readonly snapshot: JsonValue;
}
/** `STATE_DELTA`: an RFC 6902 patch of the shared state document. */
export interface StateDeltaEvent {
  readonly type: 'STATE_DELTA';
  readonly delta: readonly JsonPatchOperation[];
}

/**
 * Names of the CUSTOM events the opt-in `agdxEvents` mapping adds for records the reference
 * mapping (seed 002) drops:
 * - `agdx.user_input`: a command that arrives while no turn is open (it opens one: the user's
 *   question, from a frontend, a bridge or an operator);
 * - `agdx.command`: a command sent while a turn is open (an agent's step: the planner asking a
 *   worker), or any command naming a tool;
 * - `agdx.reply`: a response or error that names no tool (an agent's answer to a command);
 * - `agdx.input_request`: a command on the human-input topic (an approval or question for a human);
 * - `agdx.input_response`: a response or error on the human-input topic (the human's decision);
 * - `agdx.turn`: the conversation's current turn changed status (`working`, `finished`, `error`).
 */
export type AgdxCustomEventName = 'agdx.user_input' | 'agdx.command' | 'agdx.reply' | 'agdx.input_request' | 'agdx.input_response' | 'agdx.turn';

/** The value of an `agdx.*` CUSTOM event about one record (every name but `agdx.turn`). */
export interface AgdxRecordValue {
  /** The record id (Crockford), when the record has one. */
  readonly id?: string;
  /** The correlation the record carries, when it has one. */
  readonly correlation?: string;
  /** The sending agent. */
  readonly from: string;
  /** The addressed agent, when the record names one. */
  readonly to?: string;
  /** The command's operation, when it names one. */
  readonly operation?: string;
  /** The tool a command names. */
  readonly tool?: string;
  /** The body as text (a JSON `{content}` chat message shows its content); an error's message. */
  readonly text: string;
  /** True for an error record. */
  readonly error?: boolean;
}

/** The value of an `agdx.turn` CUSTOM event. */
export interface AgdxTurnValue {
  /** The correlation of the command that opened the turn. */
  readonly correlation: string;
  /**
   * `working` when it opens, then `finished` or `error` when it is answered, or `input_required`
   * when a task status says it waits for a human (see `turn.ts`).
   */
  readonly status: 'working' | 'finished' | 'error' | 'input_required';
  /** The error's message, for `error`. */
  readonly message?: string;
}

/** `CUSTOM` (opt-in `agdxEvents`): what the reference mapping drops, named `agdx.*`. */
export type AgdxCustomEvent =
  | { readonly type: 'CUSTOM'; readonly name: Exclude<AgdxCustomEventName, 'agdx.turn'>; readonly value: AgdxRecordValue }
  | { readonly type: 'CUSTOM'; readonly name: 'agdx.turn'; readonly value: AgdxTurnValue };

/** Every AG-UI event this package produces. */
export type AguiEvent =
  | RunStartedEvent
  | RunFinishedEvent
  | RunErrorEvent
  | TextMessageStartEvent
  | TextMessageContentEvent
  | TextMessageEndEvent
  | ReasoningMessageStartEvent
  | ReasoningMessageContentEvent
  | ReasoningMessageEndEvent
  | ToolCallStartEvent
  | ToolCallArgsEvent
  | ToolCallEndEvent
  | ToolCallResultEvent
  | StateSnapshotEvent
  | StateDeltaEvent
  | AgdxCustomEvent;
