import {
  LIFECYCLE_CONTENT_TYPE,
  SESSIONS_TOPIC,
  defaultSessionStart,
  sessionEndEnvelope,
  sessionStartEnvelope,
  sessionTransitionEnvelope,
  type MessagePosition,
  type SessionLease,
} from '@agdx/agents';
import {
  AgentEnvelope,
  AgentId,
  ConversationId,
  InvalidError,
  MintUlid,
  RecordId,
  STATE_DELTA_OPERATION,
  applyJsonPatch,
  STATE_SNAPSHOT_OPERATION,
  TaskState,
  encodeStateDelta,
  encodeStateSnapshot,
  taskStateDisplay,
  type JsonPatchOperation,
  type JsonValue,
  type LogPosition,
  type SessionBudget,
  type SessionEndError,
} from '@agdx/wire';
import { DEFAULT_SESSION_IDLE_TIMEOUT_MS } from '@agdx/agents';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { PositionWindow } from '../position-window.js';
import { readStateBase } from '../reads/session-reads.js';

/** An agent id as text or as a wire {@link AgentId}. */
export type AgentLike = string | AgentId;

function toAgent(agent: AgentLike | undefined, what: string): AgentId {
  if (agent instanceof AgentId) return agent;
  const id = typeof agent === 'string' ? AgentId.tryParse(agent) : undefined;
  if (id === undefined) throw new InvalidError(`${what} must be a valid agent id`, { context: { field: what } });
  return id;
}

/** What {@link SessionLifecycleWriter.begin} writes in the start record. */
export interface BeginOptions {
  /** The agent that owns the session (required). */
  readonly agent: AgentLike;
  /** Human label (≤ 256 bytes, no control characters). */
  readonly label?: string | undefined;
  /** Namespace. */
  readonly namespace?: string | undefined;
  /** Parent session. */
  readonly parent?: ConversationId | undefined;
  /** Root session (requires `parent`). */
  readonly root?: ConversationId | undefined;
  /** Idle timeout in milliseconds (default 5 min; recorded in microseconds). */
  readonly idleTimeoutMs?: number | undefined;
  /** Token and cost budget (read-time flag). */
  readonly budget?: SessionBudget | undefined;
  /** Tags (≤ 16, each ≤ 64 bytes). */
  readonly tags?: readonly string[] | undefined;
  /** Write the start as Submitted (a session handed to `agent`) instead of Working. */
  readonly submitted?: boolean | undefined;
}

/** What {@link SessionLifecycleWriter.begin} returns. */
export interface BeginResult {
  /** Where the start record landed. */
  readonly position: MessagePosition;
  /** The heartbeat lease, when the factory has a heartbeat registry. A terminal written by this writer releases it; release it yourself otherwise. */
  readonly lease: SessionLease | undefined;
}

type EndVerb = 'completed' | 'failed' | 'canceled';

/** How many deltas the writer writes before it adds a snapshot. */
export const STATE_SNAPSHOT_EVERY = 64;

/**
 * Writes one session's lifecycle and state records on its partition of `agent.sessions` (seed
 * 000): start, transitions, one terminal (first terminal wins: a retry of the same verb writes
 * the same record id, another verb after it is refused), state snapshots and JSON Patch deltas.
 */
export class SessionLifecycleWriter {
  readonly #runtime: SessionsRuntime;
  readonly #session: ConversationId;
  #agent: AgentId | undefined;
  #ending: { readonly verb: EndVerb; readonly envelope: AgentEnvelope } | undefined;
  #revision: bigint | undefined;
  #document: JsonValue | undefined;
  // The op ids readers hold as applied, with where each was applied: a delta repeating one is
  // dropped by every reader, so the writer must not count it either; and like the readers it
  // forgets an op id once its delta is REDELIVERY_WINDOW records behind on the partition.
  #appliedOpIds: PositionWindow = new PositionWindow();
  #deltasSinceSnapshot = 0;
  #changedSinceSnapshot = false;
  #lease: SessionLease | undefined;

  /** @internal Built by `Session.lifecycle`. */
  constructor(runtime: SessionsRuntime, session: ConversationId) {
    this.#runtime = runtime;
    this.#session = session;
  }

  async #publish(envelope: AgentEnvelope, signal?: AbortSignal): Promise<MessagePosition> {
    const stream = this.#runtime.stream();
    await this.#runtime.lane.check(stream, signal);
    return this.#runtime.client.publish(SESSIONS_TOPIC, envelope, LIFECYCLE_CONTENT_TYPE, { stream, signal });
  }

  #source(agent: AgentLike | undefined): AgentId {
    if (agent !== undefined) return toAgent(agent, 'agent');
    if (this.#agent === undefined) throw new InvalidError('name the agent: call begin({ agent }) first or pass agent', { context: { field: 'agent' } });
    return this.#agent;
  }

  /**
   * Writes the start (Working, or Submitted with `submitted`) and takes a heartbeat lease when
   * the factory has a registry.
   * @throws InvalidError for a start the wire rules refuse; MissingTopicError; StaleSessionError.
   */
  async begin(options: BeginOptions, signal?: AbortSignal): Promise<BeginResult> {
    const agent = toAgent(options.agent, 'agent');
    const idleMs = options.idleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
    if (!Number.isSafeInteger(idleMs) || idleMs <= 0) throw new InvalidError('idleTimeoutMs must be a positive integer', { context: { field: 'idleTimeoutMs' } });
    const start = defaultSessionStart(agent, {
      ...(options.label !== undefined ? { label: options.label } : {}),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      ...(options.parent !== undefined ? { parent: options.parent } : {}),
      ...(options.root !== undefined ? { root: options.root } : {}),
      idleTimeoutMicros: BigInt(idleMs) * 1000n,
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
      ...(options.tags !== undefined && options.tags.length > 0 ? { tags: options.tags } : {}),
    });
    const envelope = sessionStartEnvelope(this.#session, agent, start, options.submitted === true ? TaskState.Submitted : TaskState.Working);
    const position = await this.#publish(envelope, signal);
    this.#agent = agent;
    const lease = this.#runtime.heartbeats?.acquire(this.#session, idleMs);
    if (lease !== undefined) {
      this.#lease?.release();
      this.#lease = lease;
    }
    return { position, lease };
  }

  /**
   * A non-terminal transition (Working, Paused, InputRequired, AuthRequired, …).
   * @throws InvalidError for a terminal state or after this writer ended the session.
   */
  async transition(taskState: number, options: { readonly actor?: AgentLike; readonly acknowledges?: LogPosition; readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    if (this.#ending !== undefined) throw new InvalidError(`session already ending as ${this.#ending.verb}`);
    const actor = this.#source(options.actor);
    const envelope = sessionTransitionEnvelope(this.#session, actor, taskState, {
      actor,
      ...(options.acknowledges !== undefined ? { acknowledges: options.acknowledges } : {}),
    });
    return this.#publish(envelope, options.signal);
  }

  async #end(verb: EndVerb, taskState: number, build: () => AgentEnvelope, signal?: AbortSignal): Promise<MessagePosition> {
    if (this.#ending !== undefined && this.#ending.verb !== verb) {
      throw new InvalidError(`session already ending as ${this.#ending.verb}`, { context: { taskState: taskStateDisplay(taskState) } });
    }
    this.#ending ??= { verb, envelope: build() };
    await this.#snapshotIfChanged(this.#ending.envelope.source, signal);
    const position = await this.#publish(this.#ending.envelope, signal);
    // a terminal session needs no more heartbeats; the lease `begin` took is given back
    this.#lease?.release();
    this.#lease = undefined;
    return position;
  }

  /** Ends the session Completed. A retry writes the same record. */
  end(options: { readonly reason?: string; readonly agent?: AgentLike; readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    return this.#end(
      'completed',
      TaskState.Completed,
      () => sessionEndEnvelope(this.#session, this.#source(options.agent), TaskState.Completed, options.reason !== undefined ? { reason: options.reason } : {}),
      options.signal,
    );
  }

  /** Ends the session Failed with an error body. */
  fail(error: SessionEndError, options: { readonly reason?: string; readonly agent?: AgentLike; readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    return this.#end(
      'failed',
      TaskState.Failed,
      () =>
        sessionEndEnvelope(this.#session, this.#source(options.agent), TaskState.Failed, {
          error,
          ...(options.reason !== undefined ? { reason: options.reason } : {}),
        }),
      options.signal,
    );
  }

  /** Ends the session Canceled. */
  cancel(options: { readonly reason?: string; readonly agent?: AgentLike; readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    return this.#end(
      'canceled',
      TaskState.Canceled,
      () => sessionEndEnvelope(this.#session, this.#source(options.agent), TaskState.Canceled, options.reason !== undefined ? { reason: options.reason } : {}),
      options.signal,
    );
  }

  async #baseRevision(signal?: AbortSignal): Promise<bigint> {
    if (this.#revision === undefined) {
      // every applied op id, because each decides what a reader drops
      const base = await readStateBase(this.#runtime, this.#session, signal);
      this.#revision = base.revision;
      this.#document = base.document;
      this.#appliedOpIds = new PositionWindow();
      for (const { partition, offset, key } of base.opIds) this.#appliedOpIds.note(partition, offset, key);
    }
    return this.#revision;
  }

  /** The state revision as this writer knows it (what readers fold to), or undefined before the first state write. */
  get revision(): bigint | undefined {
    return this.#revision;
  }

  /** The state document as this writer knows it (read from the lane on first state use), or undefined. */
  get document(): JsonValue | undefined {
    return this.#document === undefined ? undefined : structuredClone(this.#document);
  }

  /**
   * Writes a state snapshot against the revision this writer knows (read from the lane on first
   * use). A reader applies it only when nothing changed in between.
   */
  async snapshot(document: JsonValue, options: { readonly agent?: AgentLike; readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    const baseRevision = await this.#baseRevision(options.signal);
    const body = encodeStateSnapshot({ baseRevision, document });
    const envelope = AgentEnvelope.event(MintUlid.mint(RecordId), this.#session, this.#source(options.agent), body).withOperation(STATE_SNAPSHOT_OPERATION);
    envelope.validate();
    const position = await this.#publish(envelope, options.signal);
    this.#revision = baseRevision + 1n;
    this.#document = structuredClone(document);
    this.#deltasSinceSnapshot = 0;
    this.#changedSinceSnapshot = false;
    return position;
  }

  /**
   * Writes a JSON Patch delta (≤ 256 ops) against the known revision, with an op id (default a
   * fresh ULID). The patch must apply to the known document (readers would reject it otherwise),
   * and every {@link STATE_SNAPSHOT_EVERY} deltas the writer adds a snapshot so readers whose lane
   * lost the baseline recover.
   *
   * A delta whose op id already applied (written by this writer or found on the lane) is a retry:
   * it is still appended, but readers drop it as a duplicate, so the writer leaves its revision
   * and document unchanged and does not check the patch against the document.
   * @throws InvalidError when the patch does not apply or breaks the state caps.
   */
  async patch(patch: readonly JsonPatchOperation[], options: { readonly opId?: string; readonly agent?: AgentLike; readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    const baseRevision = await this.#baseRevision(options.signal);
    const opId = options.opId ?? MintUlid.mint(RecordId).toString();
    const duplicate = this.#appliedOpIds.has(opId);
    let next = duplicate ? undefined : applyJsonPatch(this.#document ?? {}, patch);
    const body = encodeStateDelta({ baseRevision, patch, opId });
    const envelope = AgentEnvelope.event(MintUlid.mint(RecordId), this.#session, this.#source(options.agent), body).withOperation(STATE_DELTA_OPERATION);
    envelope.validate();
    const position = await this.#publish(envelope, options.signal);
    const partition = String(position.partition);
    // readers forget what the window moved past before they fold this delta, and so does the writer
    this.#appliedOpIds.advance(partition, position.offset);
    if (duplicate && !this.#appliedOpIds.has(opId)) {
      // the op id left the window: readers apply this delta, or reject it when it does not patch
      try {
        next = applyJsonPatch(this.#document ?? {}, patch);
      } catch {
        return position;
      }
    }
    if (next === undefined) return position;
    this.#appliedOpIds.note(partition, position.offset, opId);
    this.#revision = baseRevision + 1n;
    this.#document = next;
    this.#changedSinceSnapshot = true;
    if (++this.#deltasSinceSnapshot >= STATE_SNAPSHOT_EVERY) await this.snapshot(next, options);
    return position;
  }

  /** Before a terminal: a snapshot of state changed since the last one, as seed 000 asks. */
  async #snapshotIfChanged(agent: AgentLike | undefined, signal?: AbortSignal): Promise<void> {
    if (!this.#changedSinceSnapshot || this.#document === undefined) return;
    await this.snapshot(this.#document, { ...(agent !== undefined ? { agent } : {}), ...(signal !== undefined ? { signal } : {}) });
  }
}

