/**
 * The per-record conversion of seed 002 for records that need no channel context: task
 * statuses, tool results, errors and state records. Chunks are converted by {@link AguiConverter}.
 */

import {
  AgentKind,
  STATE_DELTA_OPERATION,
  STATE_SNAPSHOT_OPERATION,
  TaskState,
  decodeAgentErrorBody,
  type AgentEnvelope,
} from '@agdx/wire';
import type { AguiEvent } from './events.js';
import { readDeltaBody, readSnapshotBody, type StateBody } from './state-body.js';

/** Only status records with this operation render (seed 002). */
export const TASK_STATUS_OPERATION = 'task';
/** RUN_ERROR message of a failed or rejected task whose status carries no detail. */
export const TASK_FAILED_MESSAGE = 'task failed';

// Bodies are shown as text; a frontend cannot do better with bytes that are not UTF-8.
// ignoreBOM: a body that starts with U+FEFF is shown with it, as the agent sent it.
const lossyUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The body as display text (invalid UTF-8 becomes U+FFFD). */
export function bodyText(body: Uint8Array): string {
  return lossyUtf8.decode(body);
}

/** The text an error record carries: the CBOR error body's message, else the body as text. */
export function errorText(body: Uint8Array): string {
  try {
    const decoded = decodeAgentErrorBody(body);
    if (decoded.message !== undefined) return decoded.message;
  } catch {
    // the 0.1.1 reference and plain producers send the message as raw text
  }
  return bodyText(body);
}

/** True for a state record (an event with operation `state_snapshot` or `state_delta`). */
export function isStateRecord(envelope: AgentEnvelope): boolean {
  return envelope.kind === AgentKind.Event && (envelope.operation === STATE_SNAPSHOT_OPERATION || envelope.operation === STATE_DELTA_OPERATION);
}

/** What a state record says, read from its operation and body; undefined for any other record or an unreadable body. */
export function stateBodyOf(envelope: AgentEnvelope): StateBody | undefined {
  if (envelope.kind !== AgentKind.Event) return undefined;
  if (envelope.operation === STATE_SNAPSHOT_OPERATION) return readSnapshotBody(envelope.body);
  if (envelope.operation === STATE_DELTA_OPERATION) return readDeltaBody(envelope.body);
  return undefined;
}

/** The AG-UI event for a state body, without any revision check. */
export function stateEvent(state: StateBody): AguiEvent {
  switch (state.form) {
    case 'snapshot':
      return { type: 'STATE_SNAPSHOT', snapshot: state.snapshot.document };
    case 'legacy-snapshot':
      return { type: 'STATE_SNAPSHOT', snapshot: state.document };
    case 'delta':
      return { type: 'STATE_DELTA', delta: state.delta.patch };
    case 'legacy-delta':
      return { type: 'STATE_DELTA', delta: state.patch };
  }
}

function runIds(envelope: AgentEnvelope): { threadId: string; runId: string } {
  return { threadId: envelope.conversation.toString(), runId: (envelope.correlation ?? envelope.record)?.toString() ?? '' };
}

function statusEvents(envelope: AgentEnvelope): AguiEvent[] {
  if (envelope.operation !== TASK_STATUS_OPERATION) return [];
  switch (envelope.taskState) {
    case TaskState.Submitted:
      return [{ type: 'RUN_STARTED', ...runIds(envelope) }];
    case TaskState.Completed:
    case TaskState.Canceled:
      return [{ type: 'RUN_FINISHED', ...runIds(envelope) }];
    case TaskState.Failed:
    case TaskState.Rejected: {
      const detail = bodyText(envelope.body);
      return [{ type: 'RUN_ERROR', message: detail.length > 0 ? detail : TASK_FAILED_MESSAGE }];
    }
    default:
      return [];
  }
}

function toolResult(envelope: AgentEnvelope, content: string): AguiEvent {
  const toolCallId = envelope.correlation?.toString() ?? '';
  // AG-UI requires a message id for the tool message; the record id names it, else the call.
  return { type: 'TOOL_CALL_RESULT', messageId: envelope.record?.toString() ?? toolCallId, toolCallId, content };
}

/**
 * Converts one record that is not a chunk into AG-UI events (seed 002): task statuses to
 * RUN_STARTED / RUN_FINISHED / RUN_ERROR, a response or error naming a tool to
 * TOOL_CALL_RESULT, another error to RUN_ERROR, state records to STATE_SNAPSHOT / STATE_DELTA.
 * Returns `undefined` for a chunk (its meaning depends on its channel; use
 * {@link AguiConverter}) and `[]` for records with no AG-UI counterpart.
 */
export function envelopeToAgUi(envelope: AgentEnvelope): AguiEvent[] | undefined {
  switch (envelope.kind) {
    case AgentKind.Chunk:
      return undefined;
    case AgentKind.Status:
      return statusEvents(envelope);
    case AgentKind.Response:
      return envelope.tool !== undefined ? [toolResult(envelope, bodyText(envelope.body))] : [];
    case AgentKind.Error: {
      const message = errorText(envelope.body);
      return envelope.tool !== undefined ? [toolResult(envelope, message)] : [{ type: 'RUN_ERROR', message }];
    }
    case AgentKind.Event: {
      const state = stateBodyOf(envelope);
      return state !== undefined ? [stateEvent(state)] : [];
    }
    default:
      return [];
  }
}
