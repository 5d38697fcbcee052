/**
 * The agent side of seed 000's pause / resume protocol. Control requests (`session_pause`,
 * `session_resume`, `session_cancel`, or a Canceled status) are folded per session in log order.
 * Work for a paused session is parked: the agent acknowledges the pause (a Paused session
 * transition naming the request), appends a `session_parked` event, and only then lets the
 * source offset be committed; parked work never counts as handled. After a resume the agent
 * acknowledges with Working, handles each held record at least once before new work of that
 * session, and appends `session_unparked` after each. A cancel while paused ends the session
 * Canceled with the held records unhandled.
 */
import type { LogRecord, TopicAddress } from '@agdx/transport';
import { AgdxError } from '@agdx/wire';
import {
  AgentEnvelope,
  ConversationId,
  decodeSessionParking,
  decodeSessionPauseRequest,
  decodeSessionTransition,
  encodeSessionParking,
  MintUlid,
  RecordId,
  SESSION_PARKED_OPERATION,
  SESSION_UNPARKED_OPERATION,
  SessionControlOperation,
  TaskState,
  type AgentId,
  type LogPosition,
  type SessionParking,
} from '@agdx/wire';
import { logPositionOf, nameId, type RecordAddress } from '../agent/log-position.js';
import { SkippedRecordError } from '../errors.js';
import { sessionAcknowledgmentEnvelope, sessionEndEnvelope } from '../lifecycle/session-records.js';
import {
  addressKey,
  emptyControlState,
  firstApplication,
  type ControlRequest,
  type HeldRecord,
  type SessionControlState,
} from './session-control-state.js';

/** What the pause controller needs from its agent. */
export interface PauseControllerOptions {
  /** This agent. */
  readonly me: AgentId;
  /** Appends a lifecycle or parking envelope to the session lane (`agent.sessions`, ct cbor). */
  readonly publishLane: (envelope: AgentEnvelope) => Promise<void>;
  /** Reads a held record back from its source; `undefined` when it is gone (expired). */
  readonly readSource: (address: RecordAddress) => Promise<LogRecord | undefined>;
  /**
   * The current generation (creation time, in microseconds) of a source topic, `undefined` when
   * the log cannot say. Parkings record it, and a held record whose topic changed generation (or
   * is gone) is reported instead of handled: the record at its offset is not the one parked.
   * Without it parkings record generation 0 and a recreated topic goes unnoticed.
   * @throws a `not-found` error when the topic does not exist.
   */
  readonly topicGeneration?: ((topic: TopicAddress) => Promise<bigint | undefined>) | undefined;
  /** Handles a held record through the normal path, without the pause check. */
  readonly handleHeld: (record: LogRecord, address: RecordAddress) => Promise<void>;
  /** Told about failures of background work (acknowledgments, drains) and control bodies it cannot read. */
  readonly onError?: ((error: unknown) => void) | undefined;
}

/** What the runtime does with a work record after the pause check. */
export type Admission = 'handle' | 'parked' | 'skip';

/** Control state a handler can read. */
export interface PendingControl {
  /** A pause is in force for the session. */
  readonly pauseRequested: boolean;
  /** A cancel was requested for the session. */
  readonly cancelRequested: boolean;
}

/** Tracks session control state and parks, drains and acknowledges for one agent. */
export class PauseController {
  readonly #options: PauseControllerOptions;
  readonly #sessions = new Map<string, SessionControlState>();
  readonly #gates = new Map<string, Promise<unknown>>();

  /** A controller with no control history. */
  constructor(options: PauseControllerOptions) {
    this.#options = options;
  }

  /** The state of a session, when any control request named it. */
  state(session: string): Readonly<SessionControlState> | undefined {
    return this.#sessions.get(session);
  }

  /** The pause and cancel flags of a session. */
  pendingControl(session: string): PendingControl {
    const state = this.#sessions.get(session);
    return { pauseRequested: state?.pauseRequested ?? false, cancelRequested: state?.cancelRequested ?? false };
  }

  /** The records held for a session, oldest first. */
  held(session: string): readonly HeldRecord[] {
    return this.#sessions.get(session)?.held ?? [];
  }

  /** True when some session has held records or a pause in force (the consumer then checks every record). */
  get active(): boolean {
    return this.#sessions.size > 0;
  }

  /**
   * Applies one control record read from `agent.control` (a command or a Canceled status). Records
   * addressed to another agent are ignored, and so is a record whose record id was already
   * applied to its session (a replayed copy, reported as `replayed`). Resolves after the
   * acknowledgment (and, for a resume, the drain) finished.
   */
  async applyControl(envelope: AgentEnvelope, address: RecordAddress): Promise<void> {
    const me = this.#options.me.value;
    if (envelope.target !== undefined && envelope.target.value !== me) return;
    const action = controlAction(envelope);
    if (action === undefined) return;
    const session = envelope.conversation;
    let named = envelope.target !== undefined;
    if (action === 'pause' && !named) {
      try {
        named = decodeSessionPauseRequest(envelope.body).participants.some((p) => p.value === me);
      } catch (error) {
        // The pause still holds the session (it is addressed to everyone), but without a readable
        // participant list nobody is named, so it is not acknowledged: the owner must hear why.
        named = false;
        this.#options.onError?.(new SkippedRecordError('unusable', address, 'a session pause request has an unreadable body; it is not acknowledged', { cause: error }));
      }
    }
    const request: ControlRequest = { position: logPositionOf(address), address, record: envelope.record, named };
    await this.#serial(session.toString(), async () => {
      const state = this.#state(session.toString());
      // A record id names one request: a copy of it (appended again by anyone who can append,
      // its signature intact) must not undo what came after, such as re-pausing after a resume.
      if (envelope.record !== undefined && !firstApplication(state, envelope.record.toString())) {
        this.#options.onError?.(new SkippedRecordError('replayed', address, `control record ${envelope.record.toString()} was already applied to this session`));
        return;
      }
      if (action === 'pause') {
        state.pauseRequested = true;
        state.pause = request;
        if (named) await this.#ackPaused(session, state);
      } else if (action === 'resume') {
        state.pauseRequested = false;
        state.resume = request;
        await this.#reconcile(session, state);
      } else {
        state.cancelRequested = true;
        if (state.pauseRequested) await this.#endCanceled(session, state, request);
      }
    });
  }

  /**
   * The pause check for a work record of `session` at `address`: `parked` when the session is
   * paused (acknowledged and parked, commit it), `skip` when the session was canceled while
   * paused or the record was already handled through its parking, `handle` otherwise (held records
   * of the session are drained first).
   */
  async admit(session: ConversationId, record: RecordId | undefined, address: RecordAddress): Promise<Admission> {
    const text = session.toString();
    if (!this.#sessions.has(text)) return 'handle';
    return this.#serial(text, async () => {
      const state = this.#state(text);
      const key = addressKey(address);
      if (state.ended) return 'skip';
      if (state.handledThroughParking.has(key)) return 'skip';
      if (state.pauseRequested && state.pause !== undefined) {
        await this.#ackPaused(session, state);
        if (state.cancelRequested) {
          await this.#endCanceled(session, state, state.pause);
          return 'skip';
        }
        if (!state.seen.has(key)) {
          const generation = (await this.#options.topicGeneration?.({ stream: address.stream, topic: address.topic })) ?? 0n;
          const held: HeldRecord = { address, request: state.pause, conversation: text, generation };
          await this.#options.publishLane(this.#parkingEvent(session, SESSION_PARKED_OPERATION, held, record));
          state.seen.add(key);
          state.held.push(held);
        }
        return 'parked';
      }
      if (state.held.length > 0) await this.#reconcile(session, state);
      return state.pauseRequested ? 'parked' : 'handle';
    });
  }

  /**
   * Rebuilds this agent's parking facts after a restart from its own lane records (in lane
   * order): `session_parked` adds a held record, `session_unparked` marks it handled through its
   * parking, and its Paused / Working acknowledgments restore the newest acknowledgment. Parked
   * sources outside `resolve` (another topic or stream) stay unrecoverable and are skipped. Then
   * every session that is no longer paused is drained.
   */
  async recover(lane: readonly AgentEnvelope[], resolve: (stream: number, topic: number) => { stream: string; topic: string } | undefined): Promise<void> {
    const me = this.#options.me.value;
    const touched = new Set<string>();
    for (const envelope of lane) {
      if (envelope.source.value !== me) continue;
      const session = envelope.conversation.toString();
      if (envelope.kind === 'event' && (envelope.operation === SESSION_PARKED_OPERATION || envelope.operation === SESSION_UNPARKED_OPERATION)) {
        let parking: SessionParking;
        try {
          parking = decodeSessionParking(envelope.body);
        } catch {
          continue;
        }
        const source = parking.source;
        if (parking.role.value !== me || source.kind !== 'message') continue;
        const names = resolve(source.stream, source.topic);
        if (names === undefined) continue;
        const address: RecordAddress = { ...names, partition: source.partition, offset: source.offset };
        const key = addressKey(address);
        const state = this.#state(session);
        touched.add(session);
        if (envelope.operation === SESSION_PARKED_OPERATION) {
          if (state.seen.has(key)) continue;
          state.seen.add(key);
          const request = state.pause !== undefined && state.pause.position.equals(parking.request) ? state.pause : { position: parking.request, address, record: undefined, named: true };
          state.held.push({ address, request, conversation: session, generation: source.generation ?? 0n });
        } else {
          state.handledThroughParking.add(key);
          state.held = state.held.filter((held) => addressKey(held.address) !== key);
        }
      } else if (envelope.kind === 'status' && envelope.operation === 'session' && !envelope.last) {
        if (envelope.taskState !== TaskState.Paused && envelope.taskState !== TaskState.Working) continue;
        let acknowledges: LogPosition | undefined;
        try {
          acknowledges = decodeSessionTransition(envelope.body).acknowledges;
        } catch {
          continue;
        }
        if (acknowledges === undefined) continue;
        this.#state(session).lastAck = { state: envelope.taskState === TaskState.Paused ? 'paused' : 'working', request: acknowledges };
        touched.add(session);
      } else if (envelope.kind === 'status' && envelope.operation === 'session' && envelope.taskState === TaskState.Canceled) {
        const state = this.#sessions.get(session);
        if (state !== undefined) state.ended = true;
      }
    }
    for (const session of touched) {
      const state = this.#sessions.get(session);
      if (state === undefined || state.pauseRequested || state.held.length === 0) continue;
      const conversation = ConversationId.parse(session);
      await this.#serial(session, () => this.#reconcile(conversation, state));
    }
  }

  #state(session: string): SessionControlState {
    let state = this.#sessions.get(session);
    if (state === undefined) {
      state = emptyControlState();
      this.#sessions.set(session, state);
    }
    return state;
  }

  async #serial<T>(session: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#gates.get(session) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.#gates.set(session, settled);
    try {
      return await next;
    } finally {
      if (this.#gates.get(session) === settled) this.#gates.delete(session);
    }
  }

  async #ackPaused(session: ConversationId, state: SessionControlState): Promise<void> {
    const request = state.pause;
    if (request === undefined) return;
    if (state.lastAck?.state === 'paused' && state.lastAck.request.equals(request.position)) return;
    await this.#options.publishLane(this.#ack(session, TaskState.Paused, request));
    state.lastAck = { state: 'paused', request: request.position };
  }

  async #reconcile(session: ConversationId, state: SessionControlState): Promise<void> {
    if (state.pauseRequested || state.ended) return;
    const resume = state.resume;
    if (state.lastAck?.state === 'paused' && resume !== undefined && !state.cancelRequested) {
      await this.#options.publishLane(this.#ack(session, TaskState.Working, resume));
      state.lastAck = { state: 'working', request: resume.position };
    }
    while (state.held.length > 0 && !state.pauseRequested && !state.ended) {
      const held = state.held[0] as HeldRecord;
      const stale = await this.#staleSource(held);
      if (stale !== undefined) {
        this.#options.onError?.(stale);
        state.held.shift();
        continue;
      }
      const record = await this.#options.readSource(held.address);
      if (record !== undefined) {
        await this.#options.handleHeld(record, held.address);
        state.handledThroughParking.add(addressKey(held.address));
        await this.#options.publishLane(this.#parkingEvent(session, SESSION_UNPARKED_OPERATION, held, undefined));
      } else {
        // the source no longer holds it (expired, or its partition truncated): a typed report, as for a recreated topic
        this.#options.onError?.(new SkippedRecordError('stale-source', held.address, 'a held record is gone from its source; it is not handled'));
      }
      state.held.shift();
    }
  }

  /** A typed report when the held record's topic is gone or was recreated since the parking; `undefined` when it is the same topic (or nobody can tell). */
  async #staleSource(held: HeldRecord): Promise<SkippedRecordError | undefined> {
    const lookup = this.#options.topicGeneration;
    // generation 0 was written by a log (or an older runtime) that could not say: nothing to compare
    if (lookup === undefined || held.generation === 0n) return undefined;
    let current: bigint | undefined;
    try {
      current = await lookup({ stream: held.address.stream, topic: held.address.topic });
    } catch (error) {
      if (!AgdxError.is(error, 'not-found')) throw error;
      return new SkippedRecordError('stale-source', held.address, 'a held record\'s source topic was deleted; the record is not handled', { cause: error });
    }
    if (current === undefined || current === held.generation) return undefined;
    return new SkippedRecordError('stale-source', held.address, 'a held record\'s source topic was recreated since it was parked; the record is not handled', {
      context: { parkedGeneration: held.generation, currentGeneration: current },
    });
  }

  async #endCanceled(session: ConversationId, state: SessionControlState, request: ControlRequest): Promise<void> {
    if (state.ended) return;
    state.ended = true;
    if (!request.named && state.lastAck === undefined && state.held.length === 0) return;
    const envelope = sessionEndEnvelope(session, this.#options.me, TaskState.Canceled, { reason: 'canceled' });
    await this.#options.publishLane(withCause(envelope, request.record, request.position));
  }

  #ack(session: ConversationId, state: typeof TaskState.Paused | typeof TaskState.Working, request: ControlRequest): AgentEnvelope {
    return withCause(sessionAcknowledgmentEnvelope(session, this.#options.me, state, request.position), request.record, request.position);
  }

  #parkingEvent(session: ConversationId, operation: string, held: HeldRecord, record: RecordId | undefined): AgentEnvelope {
    const parking: SessionParking = {
      source: {
        kind: 'message',
        stream: nameId(held.address.stream),
        topic: nameId(held.address.topic),
        partition: held.address.partition,
        offset: held.address.offset,
        generation: held.generation,
        conversation: held.conversation,
      },
      role: this.#options.me,
      request: held.request.position,
    };
    const event = AgentEnvelope.event(MintUlid.mint(RecordId), session, this.#options.me, encodeSessionParking(parking)).withOperation(operation);
    return withCause(event, record, logPositionOf(held.address));
  }
}

function withCause(envelope: AgentEnvelope, record: RecordId | undefined, position: LogPosition): AgentEnvelope {
  return record === undefined ? envelope : envelope.withCause(record, position);
}

function controlAction(envelope: AgentEnvelope): 'pause' | 'resume' | 'cancel' | undefined {
  if (envelope.kind === 'command') {
    switch (envelope.operation) {
      case SessionControlOperation.Pause:
        return 'pause';
      case SessionControlOperation.Resume:
        return 'resume';
      case SessionControlOperation.Cancel:
        return 'cancel';
      default:
        return undefined;
    }
  }
  if (envelope.kind === 'status' && envelope.taskState === TaskState.Canceled) return 'cancel';
  return undefined;
}
