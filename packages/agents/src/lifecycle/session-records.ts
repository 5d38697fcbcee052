/**
 * Session lifecycle records (seed 000 "Sessions"): status envelopes with operation `session` on
 * the session's partition of `agent.sessions`, whose CBOR body is a start, a transition or an
 * end. The last flag equals whether the task state is terminal.
 */
import {
  AgentEnvelope,
  encodeSessionEnd,
  encodeSessionStart,
  encodeSessionTransition,
  isTerminalTaskState,
  InvalidError,
  MintUlid,
  RecordId,
  TaskState,
  type AgentId,
  type ConversationId,
  type LogPosition,
  type SessionEnd,
  type SessionStart,
  type SessionTransition,
} from '@agdx/wire';

/** The status operation of lifecycle records. */
export const SESSION_OPERATION = 'session';
/** The lane topic lifecycle records live on. */
export const SESSIONS_TOPIC = 'agent.sessions';
/** The SDK name written in session starts. */
export const SDK_LANGUAGE = 'typescript';
/** This package's version, written in session starts. */
export const SDK_VERSION = '0.1.0';

function status(session: ConversationId, source: AgentId, taskState: number, body: Uint8Array): AgentEnvelope {
  return AgentEnvelope.status(MintUlid.mint(RecordId), session, source, SESSION_OPERATION)
    .withTaskState(taskState)
    .withBody(body)
    .with({ last: isTerminalTaskState(taskState) });
}

/**
 * A session start (task state Submitted or Working). The envelope's parent and root are the
 * start's, as the ancestry rule requires.
 * @throws InvalidError for another task state or a start the wire rules refuse.
 */
export function sessionStartEnvelope(
  session: ConversationId,
  source: AgentId,
  start: SessionStart,
  taskState: number = TaskState.Working,
): AgentEnvelope {
  if (taskState !== TaskState.Submitted && taskState !== TaskState.Working) {
    throw new InvalidError('a session start is Submitted or Working', { context: { field: 'task_state' } });
  }
  const envelope = status(session, source, taskState, encodeSessionStart(start)).withParent(start.parent, start.root);
  envelope.validate();
  return envelope;
}

/** The start body this SDK writes for an agent. */
export function defaultSessionStart(agent: AgentId, options: Partial<Omit<SessionStart, 'agent' | 'sdk'>> = {}): SessionStart {
  return { ...options, agent, sdk: { language: SDK_LANGUAGE, version: SDK_VERSION } };
}

/**
 * A non-terminal transition (Working, Paused, InputRequired, …), optionally naming the actor and
 * the control request it acknowledges.
 * @throws InvalidError for a terminal task state.
 */
export function sessionTransitionEnvelope(
  session: ConversationId,
  source: AgentId,
  taskState: number,
  transition: SessionTransition = {},
): AgentEnvelope {
  if (isTerminalTaskState(taskState)) {
    throw new InvalidError('a session transition is not terminal; use an end', { context: { field: 'task_state' } });
  }
  const envelope = status(session, source, taskState, encodeSessionTransition(transition));
  envelope.validate();
  return envelope;
}

/** The acknowledgment of a pause (Paused) or resume (Working) request at `request`. */
export function sessionAcknowledgmentEnvelope(
  session: ConversationId,
  actor: AgentId,
  taskState: typeof TaskState.Paused | typeof TaskState.Working,
  request: LogPosition,
): AgentEnvelope {
  return sessionTransitionEnvelope(session, actor, taskState, { actor, acknowledges: request });
}

/**
 * A terminal end (Completed, Canceled, Failed or Rejected) with `last` set.
 * @throws InvalidError for a non-terminal task state.
 */
export function sessionEndEnvelope(session: ConversationId, source: AgentId, taskState: number, end: SessionEnd = {}): AgentEnvelope {
  if (!isTerminalTaskState(taskState)) {
    throw new InvalidError('a session end needs a terminal task state', { context: { field: 'task_state' } });
  }
  const envelope = status(session, source, taskState, encodeSessionEnd(end));
  envelope.validate();
  return envelope;
}
