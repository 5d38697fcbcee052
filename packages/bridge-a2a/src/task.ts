import { TaskState, taskStateName, type AgentEnvelope, type TaskStateName } from '@agdx/wire';

/** A task's state: a known AGDX task state by name, or a code this SDK does not know. */
export type A2aTaskState = { readonly kind: 'known'; readonly name: TaskStateName } | { readonly kind: 'unrecognized'; readonly code: number };

/** One text artifact (the reply body as UTF-8). */
export interface A2aArtifact {
  /** The reply body, decoded as UTF-8 (invalid sequences become U+FFFD). */
  readonly text: string;
}

/** An A2A task as the bridge sees it. The task id is the AGDX conversation and correlation. */
export interface A2aTask {
  /** Canonical Crockford text of the task id. */
  readonly id: string;
  /** The task state. */
  readonly state: A2aTaskState;
  /** Artifacts of the reply (empty until there is a non-empty reply body). */
  readonly artifacts: readonly A2aArtifact[];
}

/** The A2A v1.0 ProtoJSON task state names. */
export type A2aTaskStateJson =
  | 'TASK_STATE_UNSPECIFIED'
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_AUTH_REQUIRED';

/** An A2A v1.0 Task in ProtoJSON form, as the official clients read it. */
export interface A2aTaskJson {
  /** Task id. */
  readonly id: string;
  /** The context is the task's own AGDX conversation. */
  readonly contextId: string;
  /** Current status. */
  readonly status: { readonly state: A2aTaskStateJson };
  /** Text artifacts, omitted when empty. */
  readonly artifacts?: readonly { readonly artifactId: string; readonly parts: readonly { readonly text: string }[] }[];
}

const STATE_JSON: Readonly<Record<TaskStateName, A2aTaskStateJson>> = {
  Submitted: 'TASK_STATE_SUBMITTED',
  Working: 'TASK_STATE_WORKING',
  InputRequired: 'TASK_STATE_INPUT_REQUIRED',
  Completed: 'TASK_STATE_COMPLETED',
  Canceled: 'TASK_STATE_CANCELED',
  Failed: 'TASK_STATE_FAILED',
  Rejected: 'TASK_STATE_REJECTED',
  AuthRequired: 'TASK_STATE_AUTH_REQUIRED',
  Unknown: 'TASK_STATE_UNSPECIFIED',
  // A2A has no paused state; a paused task is still in flight.
  Paused: 'TASK_STATE_WORKING',
};

/** The task state of an AGDX task-state code. */
export function a2aTaskState(code: number): A2aTaskState {
  const name = taskStateName(code);
  return name === undefined ? { kind: 'unrecognized', code } : { kind: 'known', name };
}

/** The A2A v1.0 JSON name of a task state (unrecognized codes read as unspecified). */
export function taskStateToJson(state: A2aTaskState): A2aTaskStateJson {
  return state.kind === 'known' ? STATE_JSON[state.name] : 'TASK_STATE_UNSPECIFIED';
}

/** True for A2A's terminal states: completed, failed, canceled, rejected. */
export function isTerminalA2aState(state: A2aTaskState): boolean {
  return state.kind === 'known' && (state.name === 'Completed' || state.name === 'Failed' || state.name === 'Canceled' || state.name === 'Rejected');
}

// ignoreBOM: the artifact is the reply as sent, a leading U+FEFF included (the default drops it).
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The task a reply describes: the envelope's task state when it has one, else Failed for an
 * error and Completed for a response; the body (when not empty) is the one text artifact.
 */
export function taskFromEnvelope(taskId: string, envelope: AgentEnvelope): A2aTask {
  const code = envelope.taskState ?? (envelope.kind === 'error' ? TaskState.Failed : TaskState.Completed);
  const body = envelope.body ?? new Uint8Array(0);
  return { id: taskId, state: a2aTaskState(code), artifacts: body.length > 0 ? [{ text: lossy.decode(body) }] : [] };
}

/** A task with no reply yet. */
export function pendingTask(taskId: string, state: number): A2aTask {
  return { id: taskId, state: a2aTaskState(state), artifacts: [] };
}

/** The A2A v1.0 ProtoJSON form of a task (what `GetTask`, `CancelTask` and `{task}` carry). */
export function taskToJson(task: A2aTask): A2aTaskJson {
  const json: A2aTaskJson = { id: task.id, contextId: task.id, status: { state: taskStateToJson(task.state) } };
  if (task.artifacts.length === 0) return json;
  return { ...json, artifacts: task.artifacts.map((artifact, index) => ({ artifactId: `${task.id}-${index}`, parts: [{ text: artifact.text }] })) };
}
