import { SESSIONS_TOPIC, type AgentMessage } from '@agdx/agents';
import {
  AgentId,
  ConversationId,
  HEARTBEAT_TOPIC,
  SESSION_PARKED_OPERATION,
  SESSION_UNPARKED_OPERATION,
  STATE_DELTA_OPERATION,
  STATE_SNAPSHOT_OPERATION,
  TaskState,
  decodeSessionEnd,
  decodeSessionHeartbeat,
  decodeSessionStart,
  decodeStateDelta,
  decodeStateSnapshot,
  isTerminalTaskState,
  reportSkippedRecord,
  type AgentEnvelope,
  type SessionBudget,
  type SessionSdk,
  type SessionStart,
  StateFold,
  type StateRecord,
  type TokenUsage,
  type SkippedRecordHandler,
} from '@agdx/wire';
import { CallTally } from './call-tally.js';
import { PositionWindow, REDELIVERY_WINDOW } from '../position-window.js';
import { envelopeDisplayType, PlainDisplayType } from './display-type.js';
import type { PartitionFrontier, ScannedRecord } from './scanned-record.js';

/** The control topic operators write pause, resume and cancel requests on. */
export const CONTROL_TOPIC = 'agent.control';

/** Reader status of a session (seed 000 status mapping). */
export type SessionStatus = 'submitted' | 'active' | 'paused' | 'completed' | 'failed' | 'canceled' | 'unrecognized';

/** The reader status of a task state code. */
export function sessionStatusOf(taskState: number | undefined): SessionStatus {
  switch (taskState) {
    case TaskState.Submitted:
      return 'submitted';
    case TaskState.Working:
    case TaskState.InputRequired:
    case TaskState.AuthRequired:
      return 'active';
    case TaskState.Paused:
      return 'paused';
    case TaskState.Completed:
      return 'completed';
    case TaskState.Canceled:
      return 'canceled';
    case TaskState.Failed:
    case TaskState.Rejected:
      return 'failed';
    default:
      return 'unrecognized';
  }
}

/** Where a record is: topic, partition, offset. */
export interface EventPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
}

/** One entry of a session timeline. */
export interface SessionEvent {
  readonly at: EventPosition;
  readonly session: ConversationId;
  /** Broker time, epoch microseconds. */
  readonly brokerTs: bigint;
  /** The envelope kind, or `plain` / `undecodable`. */
  readonly kind: string;
  readonly operation: string | undefined;
  /** The display type (runtime facts §3.9). */
  readonly display: string;
  readonly agent: string | undefined;
  readonly addressee: string | undefined;
  readonly correlation: string | undefined;
  readonly tool: string | undefined;
  /** The causal parent record, when the envelope names one. */
  readonly cause: string | undefined;
  /** Token usage, when the envelope reports it. */
  readonly usage: TokenUsage | undefined;
  readonly taskState: number | undefined;
  /** True for records after the first terminal. */
  readonly afterEnd: boolean;
  /** Short human summary. */
  readonly summary: string;
}

/** What the state fold did with one record. */
export interface StateChange {
  readonly revision: bigint;
  readonly opId: string | undefined;
  readonly outcome: 'applied' | 'rejected' | 'stale' | 'duplicate' | 'unrecognized';
  readonly at: EventPosition;
  readonly brokerTs: bigint;
}

/** A session summary folded from the log (seed 000 `get`). */
export interface SessionInfo {
  readonly stream: string;
  readonly id: ConversationId;
  readonly label: string | undefined;
  readonly namespace: string | undefined;
  readonly agent: string | undefined;
  readonly parent: ConversationId | undefined;
  readonly root: ConversationId | undefined;
  readonly status: SessionStatus;
  /** No start record: active, idle after its timeout, never completed. */
  readonly implicit: boolean;
  readonly idle: boolean;
  readonly overBudget: boolean;
  readonly pauseRequested: boolean;
  readonly cancelRequested: boolean;
  readonly startedAt: bigint | undefined;
  readonly endedAt: bigint | undefined;
  readonly endReason: string | undefined;
  readonly firstEventAt: bigint | undefined;
  readonly lastEventAt: bigint | undefined;
  readonly lastHeartbeatAt: bigint | undefined;
  readonly idleTimeoutMicros: bigint;
  readonly events: bigint;
  readonly modelCalls: bigint;
  readonly toolCalls: bigint;
  readonly tokensIn: bigint;
  readonly tokensOut: bigint;
  readonly costMicros: bigint;
  readonly errors: bigint;
  readonly budget: SessionBudget | undefined;
  readonly sdk: SessionSdk | undefined;
  readonly tags: readonly string[];
  /**
   * The bridge (for example `a2a-gateway`) whose request opened this conversation, from the
   * `bridge_hops` metadata of its first envelope. A conversation with a bridge and no start
   * record is a bridge call, not a session anyone began.
   */
  readonly bridge: string | undefined;
  /** Work parked while paused and not yet unparked. */
  readonly held: number;
  /** The fold frontier of every source partition the read scanned. */
  readonly frontier: readonly PartitionFrontier[];
  readonly flags: {
    readonly laneConflict: boolean;
    /** No heartbeat topic to read, so idleness rests on events alone. */
    readonly livenessUnknown: boolean;
  };
}

/** State changes a reader keeps per session (the newest); older ones are dropped. */
export const MAX_STATE_HISTORY = 1000;

/** A session's state as its fold stands, folded record by record as the state records come. */
export interface KeptState {
  /** The fold of the state records met so far (its document is the fold's own: copy it before handing it out). */
  fold: StateFold | undefined;
  /** The newest changes, oldest first: up to twice {@link MAX_STATE_HISTORY}, of which a read shows the newest {@link MAX_STATE_HISTORY}. */
  history: StateChange[];
  /** The kind of the first state record that decoded, if any (a snapshot first means the state is whole). */
  first: 'snapshot' | 'delta' | undefined;
  /**
   * Where each op id the fold holds was applied: an op id leaves the fold when its delta is
   * {@link REDELIVERY_WINDOW} records behind on its partition, so the applied set stays bounded.
   */
  opIds: PositionWindow | undefined;
}

/** A session's state as a read sees it. */
export type FoldedState = Readonly<KeptState>;

/** No state record met yet. */
export function noState(): KeptState {
  return { fold: undefined, history: [], first: undefined, opIds: undefined };
}

/** Everything folded for one session. */
export interface FoldedSession {
  readonly info: SessionInfo;
  readonly events: SessionEvent[];
  readonly state: FoldedState;
}

/** The running fold of one session (internal; the snapshot codec stores it). */
export interface Acc {
  start: SessionStart | undefined;
  status: SessionStatus;
  implicit: boolean;
  ended: { recordKey: string } | undefined;
  startedAt: bigint | undefined;
  endedAt: bigint | undefined;
  endReason: string | undefined;
  firstEventAt: bigint | undefined;
  lastEventAt: bigint | undefined;
  lastHeartbeatAt: bigint | undefined;
  pauseRequested: boolean;
  cancelRequested: boolean;
  events: SessionEvent[];
  counters: { events: bigint; tokensIn: bigint; tokensOut: bigint; costMicros: bigint; errors: bigint };
  calls: CallTally;
  held: number;
  laneConflict: boolean;
  /** The state records met so far, folded as they come: a state read continues it instead of folding them all again. */
  state: KeptState;
  /** Restored from a fold snapshot: the summary is whole, events and state records are not. */
  partial: boolean;
}

/** An empty session fold. */
export function newAcc(): Acc {
  return {
    start: undefined,
    status: 'active',
    implicit: true,
    ended: undefined,
    startedAt: undefined,
    endedAt: undefined,
    endReason: undefined,
    firstEventAt: undefined,
    lastEventAt: undefined,
    lastHeartbeatAt: undefined,
    pauseRequested: false,
    cancelRequested: false,
    events: [],
    counters: { events: 0n, tokensIn: 0n, tokensOut: 0n, costMicros: 0n, errors: 0n },
    calls: new CallTally(),
    held: 0,
    laneConflict: false,
    state: noState(),
    partial: false,
  };
}

function positionOf(s: ScannedRecord): EventPosition {
  return { topic: s.topic, partition: s.record.partition, offset: s.record.offset };
}

function tryStart(body: Uint8Array): SessionStart | undefined {
  try {
    return decodeSessionStart(body);
  } catch {
    return undefined;
  }
}

/** Options of {@link foldSessions}. */
export interface FoldOptions {
  readonly stream: string;
  /** Now, epoch microseconds (for idleness). */
  readonly nowMicros: bigint;
  /** Whether the heartbeat topic exists. */
  readonly heartbeatsPresent: boolean;
  /** Fold only this session. */
  readonly only?: ConversationId | undefined;
  /** The scan's frontier, reported on every summary. */
  readonly frontier?: readonly PartitionFrontier[] | undefined;
  /** Receives envelopes whose heartbeat, state or end body cannot be read (the fold goes on). */
  readonly onError?: SkippedRecordHandler | undefined;
}

const DEFAULT_IDLE_MICROS = 300_000_000n;

/** What a view of the fold needs beside the records. */
export interface FoldViewContext {
  /** Now, epoch microseconds (for idleness). */
  readonly nowMicros: bigint;
  /** Whether the heartbeat topic exists. */
  readonly heartbeatsPresent: boolean;
  /** The fold frontier, reported on every summary. */
  readonly frontier: readonly PartitionFrontier[];
}

/**
 * The incremental fold of scanned lane, control and heartbeat records into per-session
 * summaries, timelines and state records, applying the seed 000 rules: first terminal wins, later
 * records are flagged `afterEnd`, sessions without a start are implicit, idle and over-budget are
 * read-time flags. Records are applied one at a time, so a reader keeps one fold and feeds it
 * only what the log gained since its last read.
 */
export class SessionFold {
  /** Per session (Crockford text): its id and running fold. */
  readonly accs: Map<string, { readonly id: ConversationId; readonly acc: Acc }> = new Map();
  /** Last heartbeat per session (Crockford text), broker time. */
  readonly heartbeats: Map<string, bigint> = new Map();
  /**
   * The record ids of the envelopes folded for their effect (usage, error, parked work, status,
   * control) in the newest {@link REDELIVERY_WINDOW} records of each topic partition, keyed
   * `topic:partition`: a copy of one of them is on the timeline but is not folded again. Saved in
   * fold snapshots, so a reader resumed from one recognises copies of records folded before it.
   */
  readonly redelivery: PositionWindow;
  /** The sessions whose start names each parent (parent's Crockford text), so `links` needs no walk over every session. */
  readonly #children = new Map<string, Map<string, ConversationId>>();
  /** The redelivery window's `topic:partition` keys, made once per partition rather than per record. */
  readonly #windowKeys = new Map<string, string[]>();
  readonly #stream: string;
  readonly #only: ConversationId | undefined;
  readonly #keepEvents: (key: string) => boolean;
  readonly #onError: SkippedRecordHandler | undefined;

  /**
   * @param keepEvents which sessions keep their timeline (the summary and state records are kept
   *   for every session): a long-lived reader keeps only the timelines it was asked for.
   * @param redelivery the redelivery window to continue (one restored from a fold snapshot).
   */
  constructor(
    stream: string,
    options: { only?: ConversationId | undefined; keepEvents?: (key: string) => boolean; onError?: SkippedRecordHandler | undefined; redelivery?: PositionWindow | undefined } = {},
  ) {
    this.#stream = stream;
    this.redelivery = options.redelivery ?? new PositionWindow();
    this.#only = options.only;
    this.#keepEvents = options.keepEvents ?? (() => true);
    this.#onError = options.onError;
  }

  /** The running fold of `id`, created empty on first use. */
  accFor(id: ConversationId): Acc {
    const key = id.toString();
    let entry = this.accs.get(key);
    if (entry === undefined) {
      entry = { id, acc: newAcc() };
      this.accs.set(key, entry);
    }
    return entry.acc;
  }

  /** Adds a session restored from a fold snapshot, with its place among its parent's children. */
  restore(key: string, entry: { readonly id: ConversationId; readonly acc: Acc }): void {
    this.accs.set(key, entry);
    this.#indexChild(entry.id, entry.acc);
  }

  /** The sessions whose start names `parent`, in id order. */
  childrenOf(parent: ConversationId): ConversationId[] {
    const children = this.#children.get(parent.toString());
    if (children === undefined) return [];
    return [...children.keys()].sort().map((key) => children.get(key) as ConversationId);
  }

  #indexChild(id: ConversationId, acc: Acc): void {
    const parent = acc.start?.parent;
    if (parent === undefined) return;
    const key = parent.toString();
    let children = this.#children.get(key);
    if (children === undefined) this.#children.set(key, (children = new Map()));
    children.set(id.toString(), id);
  }

  /** Applies one record. */
  apply(scanned: ScannedRecord): void {
    const report = (cause: unknown): void =>
      reportSkippedRecord(this.#onError, { stream: this.#stream, topic: scanned.topic, partition: scanned.record.partition, offset: scanned.record.offset }, cause);
    const ts = scanned.record.timestampMicros;
    const message = scanned.message;
    if (scanned.topic === HEARTBEAT_TOPIC) {
      if (message?.envelope === undefined) return;
      try {
        const beat = decodeSessionHeartbeat(message.envelope.body);
        if (beat.stream !== this.#stream) return;
        for (const s of beat.sessions) this.heartbeats.set(s.toString(), ts);
      } catch (error) {
        // A malformed heartbeat says nothing about liveness.
        report(error);
      }
      return;
    }
    const conversation = scanned.conversation;
    if (conversation === undefined) return;
    if (this.#only !== undefined && !this.#only.equals(conversation)) return;
    const acc = this.accFor(conversation);
    // A redelivered envelope (a producer's retried append: the same record id again, on the same
    // partition) is on the timeline, but its usage, error, parked work, status change and control
    // request were folded with the first copy. Only envelopes with such an effect are looked up
    // and remembered, so chunks and plain commands cost nothing here.
    const envelope = message?.envelope;
    const record = envelope !== undefined && hasFoldEffect(envelope, scanned.topic) ? envelope.record : undefined;
    const redelivered = record !== undefined && this.redelivery.seen(this.#windowKey(scanned.topic, scanned.record.partition), scanned.record.offset, record.toString());
    if (scanned.topic === CONTROL_TOPIC && !redelivered) {
      foldControl(acc, message);
    }
    acc.firstEventAt ??= ts;
    acc.lastEventAt = ts;
    acc.counters.events++;
    const started = acc.start !== undefined;
    const event = eventOf(scanned, conversation, acc, message, report, redelivered);
    // the first start decides the parent for good, so a session is indexed once
    if (!started && acc.start !== undefined) this.#indexChild(conversation, acc);
    if (this.#keepEvents(conversation.toString())) acc.events.push(event);
  }

  #windowKey(topic: string, partition: number): string {
    let keys = this.#windowKeys.get(topic);
    if (keys === undefined) this.#windowKeys.set(topic, (keys = []));
    return (keys[partition] ??= `${topic}:${partition}`);
  }

  /** The folded view of one session, or undefined when the fold holds nothing of it. */
  view(key: string, context: FoldViewContext): FoldedSession | undefined {
    const entry = this.accs.get(key);
    return entry === undefined ? undefined : viewOf(this.#stream, entry.id, entry.acc, this.heartbeats.get(key), context);
  }

  /** The folded view of every session. */
  views(context: FoldViewContext): Map<string, FoldedSession> {
    const out = new Map<string, FoldedSession>();
    for (const [key, { id, acc }] of this.accs) out.set(key, viewOf(this.#stream, id, acc, this.heartbeats.get(key), context));
    return out;
  }
}

function viewOf(stream: string, id: ConversationId, acc: Acc, lastHeartbeatAt: bigint | undefined, context: FoldViewContext): FoldedSession {
  const start = acc.start;
  const idleTimeoutMicros = start?.idleTimeoutMicros ?? DEFAULT_IDLE_MICROS;
  const lastLive = [acc.lastEventAt, lastHeartbeatAt].reduce<bigint>((m, v) => (v !== undefined && v > m ? v : m), 0n);
  const idle = acc.ended === undefined && context.nowMicros - lastLive > idleTimeoutMicros;
  const budget = start?.budget;
  let overBudget = false;
  if (budget !== undefined) {
    const tokens = acc.counters.tokensIn + acc.counters.tokensOut;
    if (budget.tokens !== undefined && tokens > budget.tokens) overBudget = true;
    else if (budget.costMicros !== undefined && acc.counters.costMicros > budget.costMicros) overBudget = true;
  }
  const info: SessionInfo = {
    stream,
    id,
    label: start?.label,
    namespace: start?.namespace,
    agent: start?.agent.value,
    parent: start?.parent,
    root: start?.root,
    status: acc.status,
    implicit: acc.implicit,
    idle,
    overBudget,
    pauseRequested: acc.pauseRequested,
    cancelRequested: acc.cancelRequested,
    startedAt: acc.startedAt,
    endedAt: acc.endedAt,
    endReason: acc.endReason,
    firstEventAt: acc.firstEventAt,
    lastEventAt: acc.lastEventAt,
    lastHeartbeatAt,
    idleTimeoutMicros,
    ...acc.counters,
    modelCalls: acc.calls.modelCalls,
    toolCalls: acc.calls.toolCalls,
    budget,
    sdk: start?.sdk,
    tags: start?.tags ?? [],
    bridge: acc.calls.bridge,
    held: acc.held,
    frontier: context.frontier,
    flags: { laneConflict: acc.laneConflict, livenessUnknown: !context.heartbeatsPresent },
  };
  return { info, events: acc.events, state: acc.state };
}

/** Folds `records` in the order given (a one-off {@link SessionFold}). */
export function foldSessions(records: readonly ScannedRecord[], options: FoldOptions): Map<string, FoldedSession> {
  const fold = new SessionFold(options.stream, { only: options.only, onError: options.onError });
  for (const r of records) fold.apply(r);
  return fold.views({ nowMicros: options.nowMicros, heartbeatsPresent: options.heartbeatsPresent, frontier: options.frontier ?? [] });
}

/** Folds one state record (undefined: one whose body did not decode) into the session's state and its history. */
function foldState(state: KeptState, record: StateRecord | undefined, at: EventPosition, brokerTs: bigint): void {
  let change: StateChange;
  if (record === undefined) {
    change = { revision: state.fold?.revision ?? 0n, opId: undefined, outcome: 'unrecognized', at, brokerTs };
  } else {
    state.first ??= record.kind;
    const fold = (state.fold ??= new StateFold());
    // an op id applied more than the window ago is no longer held: a repeat of it applies again
    const opIds = (state.opIds ??= new PositionWindow(REDELIVERY_WINDOW, (opId) => fold.forgetOpId(opId)));
    const partition = String(at.partition);
    opIds.advance(partition, at.offset);
    const outcome = fold.apply(record);
    if (outcome === 'applied' && record.kind === 'delta') opIds.note(partition, at.offset, record.delta.opId);
    change = { revision: fold.revision, opId: record.kind === 'delta' ? record.delta.opId : undefined, outcome, at, brokerTs };
  }
  state.history.push(change);
  // trimmed in halves, so keeping the newest costs a copy per MAX_STATE_HISTORY records, not per record
  if (state.history.length >= 2 * MAX_STATE_HISTORY) state.history = state.history.slice(-MAX_STATE_HISTORY);
}

/** True when folding `envelope` changes more than the timeline: usage, errors, parked work, status or control flags. */
function hasFoldEffect(envelope: AgentEnvelope, topic: string): boolean {
  if (envelope.usage !== undefined || envelope.kind === 'error' || topic === CONTROL_TOPIC) return true;
  if (envelope.kind === 'event') return envelope.operation === SESSION_PARKED_OPERATION || envelope.operation === SESSION_UNPARKED_OPERATION;
  return topic === SESSIONS_TOPIC && envelope.kind === 'status' && envelope.operation === 'session';
}

function foldControl(acc: Acc, message: AgentMessage | undefined): void {
  const envelope = message?.envelope;
  if (envelope === undefined) return;
  if (envelope.kind === 'command') {
    if (envelope.operation === 'session_pause') acc.pauseRequested = true;
    else if (envelope.operation === 'session_resume') acc.pauseRequested = false;
    else if (envelope.operation === 'session_cancel') acc.cancelRequested = true;
  } else if (envelope.kind === 'status' && envelope.taskState === TaskState.Canceled) {
    acc.cancelRequested = true;
  }
}

function eventOf(scanned: ScannedRecord, session: ConversationId, acc: Acc, message: AgentMessage | undefined, report: (cause: unknown) => void, redelivered: boolean): SessionEvent {
  const ts = scanned.record.timestampMicros;
  const at = positionOf(scanned);
  const afterEnd = acc.ended !== undefined;
  if (message === undefined) {
    return {
      at,
      session,
      brokerTs: ts,
      kind: 'undecodable',
      operation: undefined,
      display: PlainDisplayType.Undecodable,
      agent: undefined,
      addressee: undefined,
      correlation: undefined,
      tool: undefined,
      cause: undefined,
      usage: undefined,
      taskState: undefined,
      afterEnd,
      summary: `${scanned.record.payload.length} undecodable bytes`,
    };
  }
  const envelope = message.envelope;
  if (envelope === undefined) {
    return {
      at,
      session,
      brokerTs: ts,
      kind: 'plain',
      operation: undefined,
      display: PlainDisplayType.AgentMessage,
      agent: message.provenance.agent?.value,
      addressee: message.provenance.target?.value,
      correlation: message.provenance.correlation,
      tool: undefined,
      cause: message.provenance.cause,
      usage: undefined,
      taskState: undefined,
      afterEnd,
      summary: `${message.payload.length} bytes`,
    };
  }
  const usage = envelope.usage;
  if (usage !== undefined && !redelivered) {
    acc.counters.tokensIn += BigInt(usage.inputTokens ?? 0n);
    acc.counters.tokensOut += BigInt(usage.outputTokens ?? 0n);
    acc.counters.costMicros += BigInt(usage.costMicros ?? 0n);
  }
  let isStart = false;
  let eventAfterEnd = afterEnd;
  if (scanned.topic === SESSIONS_TOPIC && envelope.kind === 'status' && envelope.operation === 'session') {
    const state = envelope.taskState;
    const recordKey = envelope.record?.toString() ?? `${at.partition}:${at.offset}`;
    if (state !== undefined && isTerminalTaskState(state)) {
      if (acc.ended === undefined) {
        acc.ended = { recordKey };
        acc.status = sessionStatusOf(state);
        acc.endedAt = ts;
        try {
          acc.endReason = decodeSessionEnd(envelope.body).reason;
        } catch (error) {
          acc.endReason = undefined;
          report(error);
        }
      } else if (acc.ended.recordKey === recordKey) {
        // A repeated identical terminal changes nothing and is not "after" itself.
        eventAfterEnd = false;
      }
    } else {
      const start = state === TaskState.Submitted || state === TaskState.Working ? tryStart(envelope.body) : undefined;
      if (start !== undefined) {
        isStart = true;
        if (acc.start === undefined) {
          acc.start = start;
          acc.startedAt = ts;
          acc.implicit = false;
        } else if (!(start.agent as AgentId).equals(acc.start.agent) && state === TaskState.Working && acc.status !== 'submitted') {
          acc.laneConflict = true;
        }
      }
      if (acc.ended === undefined && !redelivered) acc.status = sessionStatusOf(state);
    }
  }
  const envelopeDisplay = envelopeDisplayType(envelope, scanned.topic, isStart);
  acc.calls.observe(envelope, envelopeDisplay, `${at.topic}:${at.partition}:${at.offset}`);
  const display = acc.calls.displayOf(envelope, envelopeDisplay);
  const operation = envelope.operation ?? acc.calls.purposeOf(envelope);
  if (!redelivered) {
    if (envelope.kind === 'error') acc.counters.errors++;
    if (envelope.kind === 'event' && envelope.operation === SESSION_PARKED_OPERATION) acc.held++;
    if (envelope.kind === 'event' && envelope.operation === SESSION_UNPARKED_OPERATION && acc.held > 0) acc.held--;
  }
  if (scanned.topic === SESSIONS_TOPIC && envelope.kind === 'event' && (envelope.operation === STATE_SNAPSHOT_OPERATION || envelope.operation === STATE_DELTA_OPERATION)) {
    let record: StateRecord | undefined;
    try {
      record =
        envelope.operation === STATE_SNAPSHOT_OPERATION
          ? { kind: 'snapshot', snapshot: decodeStateSnapshot(envelope.body) }
          : { kind: 'delta', delta: decodeStateDelta(envelope.body) };
    } catch (error) {
      // An undecodable state body shows in the state history as unrecognized.
      record = undefined;
      report(error);
    }
    foldState(acc.state, record, at, ts);
  }
  return {
    at,
    session,
    brokerTs: ts,
    kind: envelope.kind,
    operation: envelope.operation,
    display,
    agent: envelope.source.value,
    addressee: envelope.target?.value,
    correlation: envelope.correlation?.toString(),
    tool: envelope.tool,
    cause: envelope.cause?.toString(),
    usage: envelope.usage,
    taskState: envelope.taskState,
    afterEnd: eventAfterEnd,
    summary: `${envelope.kind}${operation !== undefined ? ` ${operation}` : ''} from ${envelope.source.value}`,
  };
}
