import { layoutTopics, SESSIONS_TOPIC } from '@agdx/agents';
import { ConversationId, HEARTBEAT_TOPIC, InvalidError, reconstructState, type JsonValue, type StateRecord } from '@agdx/wire';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { scanTopics, type LaneScan, type PartitionFrontier } from './lane-scan.js';
import { CONTROL_TOPIC, foldSessions, type FoldedSession, type SessionEvent, type SessionInfo, type SessionStatus, type StateChange } from './session-fold.js';

/**
 * The topics a session read scans: the lane with every topic the client's stream layout sends
 * lane work to (a topic per agent moves commands, replies and chunks off the lane), then control
 * and heartbeats.
 */
function laneTopics(runtime: SessionsRuntime): readonly string[] {
  return [...layoutTopics(runtime.client.layout, SESSIONS_TOPIC), CONTROL_TOPIC, HEARTBEAT_TOPIC];
}

/** Filters of {@link SessionReads.list}. */
export interface SessionListFilter {
  readonly status?: SessionStatus | undefined;
  readonly agent?: string | undefined;
  /** Case-insensitive text matched against id, label, agent, namespace and tags. */
  readonly text?: string | undefined;
  readonly root?: ConversationId | undefined;
  readonly labelPrefix?: string | undefined;
  /** Page size (default 100). */
  readonly limit?: number | undefined;
  /** The cursor of the previous page. */
  readonly cursor?: string | undefined;
}

/** A page of sessions, newest first. */
export interface SessionPage {
  readonly items: SessionInfo[];
  readonly cursor: string | undefined;
  readonly total: number;
}

/** A fold gap: records the log no longer holds. */
export interface SourceGap {
  readonly topic: string;
  readonly partition: number;
  readonly from: bigint;
  readonly to: bigint;
  readonly reason: 'expired_before_fold';
}

/** A page of a session timeline, in broker-time order. */
export interface SessionEventsPage {
  readonly items: SessionEvent[];
  readonly cursor: string | undefined;
  readonly frontier: PartitionFrontier[];
  readonly gaps: SourceGap[];
}

/** A session's folded state document. */
export interface SessionStateView {
  readonly revision: bigint;
  readonly document: JsonValue | undefined;
  /** The newest changes, oldest first (at most the history limit). */
  readonly history: StateChange[];
  /** False when the lane no longer holds the state's baseline. */
  readonly complete: boolean;
}

/** A session's family. */
export interface SessionLinksView {
  readonly parent: ConversationId | undefined;
  readonly root: ConversationId | undefined;
  readonly children: ConversationId[];
}

/** Fold frontier and gaps per source. */
export interface SessionSourcesView {
  readonly sources: PartitionFrontier[];
  readonly gaps: SourceGap[];
}

/** One row of the change feed. */
export interface SessionChangeRow {
  readonly seq: bigint;
  readonly sessions: ConversationId[];
  readonly positions: { readonly topic: string; readonly partition: number; readonly offset: bigint }[];
}

/** A page of the change feed. */
export interface SessionChangesView {
  readonly rows: SessionChangeRow[];
  /** The lowest sequence still retained. */
  readonly floor: bigint;
  /** True when `after` is below the floor: rows were lost, read the sessions again. */
  readonly resync: boolean;
}

function gapsOf(frontiers: readonly PartitionFrontier[]): SourceGap[] {
  return frontiers
    .filter((f) => f.retainedFrom > 0n)
    .map((f) => ({ topic: f.topic, partition: f.partition, from: 0n, to: f.retainedFrom, reason: 'expired_before_fold' as const }));
}

function checkId(id: unknown): ConversationId {
  if (id instanceof ConversationId) return id;
  if (typeof id === 'string') {
    const parsed = ConversationId.tryParse(id);
    if (parsed !== undefined) return parsed;
  }
  throw new InvalidError('invalid session request: expected a session (conversation) id', { context: { field: 'id' } });
}

function pageIndex(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^(0|[1-9][0-9]{0,8})$/.test(cursor)) throw new InvalidError('invalid session request: bad cursor', { context: { field: 'cursor' } });
  return Number(cursor);
}

function pageSize(limit: number | undefined, fallback: number): number {
  if (limit === undefined || limit === 0) return fallback;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new InvalidError('invalid session request: limit must be a non-negative integer', { context: { field: 'limit' } });
  return limit;
}

/**
 * The seven session reads of seed 000, served from the log itself by folding `agent.sessions`,
 * `agent.control` and `agent.heartbeats` in process: a plain Iggy deployment has no managed
 * session index. Each read scans the retained lane, so it costs one pass over it.
 */
export class SessionReads {
  readonly #runtime: SessionsRuntime;

  /** @internal Built by the factory. */
  constructor(runtime: SessionsRuntime) {
    this.#runtime = runtime;
  }

  async #scan(signal?: AbortSignal): Promise<{ scan: LaneScan; stream: string }> {
    const stream = this.#runtime.stream();
    const scan = await scanTopics(this.#runtime.client.transport, stream, laneTopics(this.#runtime), signal, this.#runtime.onError);
    const lanePartitions = scan.frontiers.filter((f) => f.topic === SESSIONS_TOPIC).length;
    this.#runtime.lane.observe(stream, scan.present.has(SESSIONS_TOPIC) ? lanePartitions : undefined);
    return { scan, stream };
  }

  async #fold(only: ConversationId | undefined, signal?: AbortSignal): Promise<{ folded: Map<string, FoldedSession>; scan: LaneScan }> {
    const { scan, stream } = await this.#scan(signal);
    const folded = foldSessions(scan.records, {
      stream,
      nowMicros: this.#runtime.client.clock.nowMicros(),
      heartbeatsPresent: scan.present.has(HEARTBEAT_TOPIC),
      only,
      frontier: scan.frontiers,
      onError: this.#runtime.onError,
    });
    return { folded, scan };
  }

  /** Sessions of the stream, newest first, filtered by status, agent, text, root and label prefix. */
  async list(filter: SessionListFilter = {}, signal?: AbortSignal): Promise<SessionPage> {
    const { folded } = await this.#fold(undefined, signal);
    const text = filter.text?.toLowerCase();
    const items = [...folded.values()]
      .map((f) => f.info)
      .filter((s) => filter.status === undefined || s.status === filter.status)
      .filter((s) => filter.agent === undefined || s.agent === filter.agent)
      .filter((s) => filter.root === undefined || s.id.equals(filter.root) || (s.root ?? s.parent)?.equals(filter.root) === true)
      .filter((s) => filter.labelPrefix === undefined || (s.label ?? s.id.toString()).startsWith(filter.labelPrefix))
      .filter(
        (s) =>
          text === undefined ||
          [s.id.toString(), s.label, s.agent, s.namespace, ...s.tags].some((v) => v !== undefined && v.toLowerCase().includes(text)),
      )
      .sort((a, b) => {
        const at = a.startedAt ?? a.firstEventAt ?? 0n;
        const bt = b.startedAt ?? b.firstEventAt ?? 0n;
        return at === bt ? (a.id.toString() < b.id.toString() ? 1 : -1) : at < bt ? 1 : -1;
      });
    const from = pageIndex(filter.cursor);
    const size = pageSize(filter.limit, 100);
    const page = items.slice(from, from + size);
    return { items: page, cursor: from + size < items.length ? String(from + size) : undefined, total: items.length };
  }

  /** The summary of one session, or undefined when the log holds nothing of it. */
  async get(id: ConversationId | string, signal?: AbortSignal): Promise<SessionInfo | undefined> {
    const session = checkId(id);
    const { folded } = await this.#fold(session, signal);
    return folded.get(session.toString())?.info;
  }

  /** A session's timeline with display types, in broker-time order. */
  async events(id: ConversationId | string, options: { readonly limit?: number; readonly cursor?: string; readonly signal?: AbortSignal } = {}): Promise<SessionEventsPage> {
    const session = checkId(id);
    const { folded, scan } = await this.#fold(session, options.signal);
    const all = folded.get(session.toString())?.events ?? [];
    const from = pageIndex(options.cursor);
    const size = pageSize(options.limit, 1000);
    const frontier = scan.frontiers.filter((f) => f.topic !== HEARTBEAT_TOPIC);
    return {
      items: all.slice(from, from + size),
      cursor: from + size < all.length ? String(from + size) : undefined,
      frontier,
      gaps: gapsOf(frontier),
    };
  }

  /** A session's state: the folded document, its revision and the newest changes. */
  async state(id: ConversationId | string, historyLimit = 64, signal?: AbortSignal): Promise<SessionStateView> {
    return readSessionState(this.#runtime, checkId(id), historyLimit, signal, this);
  }

  /** @internal */
  async foldedState(session: ConversationId, signal?: AbortSignal): Promise<{ folded: FoldedSession | undefined; scan: LaneScan }> {
    const { folded, scan } = await this.#fold(session, signal);
    return { folded: folded.get(session.toString()), scan };
  }

  /** Parent, root and the children whose start names this session as parent. */
  async links(id: ConversationId | string, signal?: AbortSignal): Promise<SessionLinksView> {
    const session = checkId(id);
    const { folded } = await this.#fold(undefined, signal);
    const info = folded.get(session.toString())?.info;
    const children = [...folded.values()].filter((f) => f.info.parent?.equals(session) === true).map((f) => f.info.id);
    return { parent: info?.parent, root: info?.root, children };
  }

  /** The fold frontier of each source partition and the gaps where records expired before a fold. */
  async sources(id: ConversationId | string, signal?: AbortSignal): Promise<SessionSourcesView> {
    checkId(id);
    const { scan } = await this.#scan(signal);
    return { sources: scan.frontiers, gaps: gapsOf(scan.frontiers) };
  }

  /**
   * The stream's change feed: one row per lane or control record, numbered in broker-time order
   * from 1. Poll with the last sequence seen. Sequence numbers follow the retained log, so an
   * expired record moves the floor up and a reader behind it gets `resync`.
   */
  async changes(after: bigint = 0n, limit = 1000, signal?: AbortSignal): Promise<SessionChangesView> {
    if (typeof after !== 'bigint' || after < 0n) throw new InvalidError('invalid session request: after must be a non-negative bigint', { context: { field: 'after' } });
    const size = pageSize(limit, 1000);
    const { scan } = await this.#scan(signal);
    const expired = scan.frontiers.filter((f) => f.topic !== HEARTBEAT_TOPIC).reduce((n, f) => n + f.retainedFrom, 0n);
    const floor = expired + 1n;
    const rows: SessionChangeRow[] = [];
    let seq = expired;
    for (const r of scan.records) {
      if (r.topic === HEARTBEAT_TOPIC) continue;
      seq++;
      if (seq <= after || r.conversation === undefined) continue;
      if (rows.length >= size) break;
      rows.push({ seq, sessions: [r.conversation], positions: [{ topic: r.topic, partition: r.record.partition, offset: r.record.offset }] });
    }
    return { rows, floor, resync: after + 1n < floor && after !== 0n };
  }
}

/** Folds a session's state records (used by the state read and by the state writer for its base revision). */
export async function readSessionState(
  runtime: SessionsRuntime,
  session: ConversationId,
  historyLimit: number,
  signal?: AbortSignal,
  reads: SessionReads = new SessionReads(runtime),
): Promise<SessionStateView> {
  if (!Number.isSafeInteger(historyLimit) || historyLimit < 0) throw new InvalidError('invalid session request: history limit', { context: { field: 'historyLimit' } });
  const { folded, scan } = await reads.foldedState(session, signal);
  const entries = folded?.stateRecords ?? [];
  const recognized = entries.filter((e): e is typeof e & { record: StateRecord } => e.record !== undefined);
  const result = reconstructState(recognized.map((e) => e.record));
  const history: StateChange[] = [];
  let k = 0;
  let revision = 0n;
  for (const entry of entries) {
    if (entry.record === undefined) {
      history.push({ revision, opId: undefined, outcome: 'unrecognized', at: entry.at, brokerTs: entry.brokerTs });
      continue;
    }
    const outcome = result.outcomes[k++] ?? 'rejected';
    if (outcome === 'applied') revision++;
    history.push({ revision, opId: entry.record.kind === 'delta' ? entry.record.delta.opId : undefined, outcome, at: entry.at, brokerTs: entry.brokerTs });
  }
  const lane = scan.frontiers.filter((f) => f.topic === SESSIONS_TOPIC);
  const first = recognized[0];
  const complete = first === undefined || first.record.kind === 'snapshot' || lane.every((f) => f.retainedFrom === 0n);
  return { revision: result.revision, document: result.document, history: history.slice(Math.max(0, history.length - historyLimit)), complete };
}
