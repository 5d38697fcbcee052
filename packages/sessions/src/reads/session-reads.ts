import { SESSIONS_TOPIC } from '@agdx/agents';
import { ConversationId, HEARTBEAT_TOPIC, InvalidError, type JsonValue } from '@agdx/wire';
import type { SessionsRuntime } from '../sessions-runtime.js';
import type { FoldSnapshotWritten } from './fold-snapshot-store.js';
import { LaneFold, type FoldStart, type LaneView, type SessionChangeRow, type SourceGap } from './lane-fold.js';
import { readMerged, type PartitionRange } from './merged-read.js';
import type { PartitionFrontier } from './scanned-record.js';
import { MAX_STATE_HISTORY, type SessionFold, type FoldedSession, type SessionEvent, type SessionInfo, type SessionStatus, type StateChange } from './session-fold.js';

export type { SessionChangeRow, SourceGap } from './lane-fold.js';
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
  /** Where this reader's fold began: a fold snapshot, or the log (with the snapshot it refused, if any). */
  readonly start: FoldStart;
}

/** A page of the change feed. */
export interface SessionChangesView {
  readonly rows: SessionChangeRow[];
  /** The lowest sequence still retained. */
  readonly floor: bigint;
  /**
   * True when `after` is below the floor (rows were lost) or beyond the newest sequence (the feed
   * was numbered again from 1 after a lane topic was recreated; the rows then start from the
   * beginning): read the sessions again.
   */
  readonly resync: boolean;
}

function gapsOf(view: LaneView, sources: ReadonlySet<string> | undefined): SourceGap[] {
  return view.gaps.filter((g) => sources === undefined || sources.has(g.topic));
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

/** Options of a {@link SessionReads} reader. */
export interface SessionReadsOptions {
  /** Start a new reader from the newest fold snapshot of its stream when one checks out (default true). */
  readonly snapshots?: boolean | undefined;
  /** Write a fold snapshot after a read that folded at least this many records since the last one (default: only on `snapshot()`). */
  readonly snapshotEvery?: number | undefined;
}

/**
 * The seven session reads of seed 000, served from the log itself by folding `agent.sessions`
 * (with the topics the stream layout moves lane work to), `agent.control` and `agent.heartbeats`
 * in process: a plain Iggy deployment has no managed session index. A reader keeps its fold and
 * per-partition resume offsets between reads, so a read costs what the log gained since the
 * previous read; the first read starts from the newest fold snapshot that checks out, else from
 * the retained start.
 */
export class SessionReads {
  readonly #runtime: SessionsRuntime;
  readonly #fold: LaneFold;
  /** Where the last read of change rows older than the window stopped: the next page continues there. */
  #older: { readonly fold: SessionFold; readonly seqBase: bigint; readonly seq: bigint; readonly positions: ReadonlyMap<string, bigint> } | undefined;

  /** @internal Built by the factory. */
  constructor(runtime: SessionsRuntime, options: SessionReadsOptions = {}) {
    if (options.snapshotEvery !== undefined && (!Number.isSafeInteger(options.snapshotEvery) || options.snapshotEvery <= 0)) {
      throw new InvalidError('snapshotEvery must be a positive integer', { context: { field: 'snapshotEvery' } });
    }
    this.#runtime = runtime;
    this.#fold = new LaneFold(runtime, options);
  }

  #context(view: LaneView): { nowMicros: bigint; heartbeatsPresent: boolean; frontier: PartitionFrontier[] } {
    return { nowMicros: this.#runtime.client.clock.nowMicros(), heartbeatsPresent: view.present.has(HEARTBEAT_TOPIC), frontier: view.frontier };
  }

  /** Sessions of the stream, newest first, filtered by status, agent, text, root and label prefix. */
  async list(filter: SessionListFilter = {}, signal?: AbortSignal): Promise<SessionPage> {
    const view = await this.#fold.refresh(signal);
    const folded = view.fold.views(this.#context(view));
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
    const view = await this.#fold.refresh(signal);
    return view.fold.view(session.toString(), this.#context(view))?.info;
  }

  /** A session's timeline with display types, in broker-time order. */
  async events(id: ConversationId | string, options: { readonly limit?: number; readonly cursor?: string; readonly signal?: AbortSignal } = {}): Promise<SessionEventsPage> {
    const session = checkId(id);
    const from = pageIndex(options.cursor);
    const size = pageSize(options.limit, 1000);
    const view = await this.#fold.complete(session, true, options.signal);
    const all = view.fold.view(session.toString(), this.#context(view))?.events ?? [];
    const frontier = view.frontier.filter((f) => f.topic !== HEARTBEAT_TOPIC);
    return {
      items: all.slice(from, from + size),
      cursor: from + size < all.length ? String(from + size) : undefined,
      frontier,
      gaps: gapsOf(view, new Set(frontier.map((f) => f.topic))),
    };
  }

  /** A session's state: the folded document, its revision and the newest changes. */
  async state(id: ConversationId | string, historyLimit = 64, signal?: AbortSignal): Promise<SessionStateView> {
    return readSessionState(this.#runtime, checkId(id), historyLimit, signal, this);
  }

  /** @internal */
  async foldedState(session: ConversationId, signal?: AbortSignal): Promise<{ folded: FoldedSession | undefined; view: LaneView }> {
    const view = await this.#fold.complete(session, false, signal);
    return { folded: view.fold.view(session.toString(), this.#context(view)), view };
  }

  /** Parent, root and the children whose start names this session as parent (in id order; kept indexed by the fold, not found by a walk over every session). */
  async links(id: ConversationId | string, signal?: AbortSignal): Promise<SessionLinksView> {
    const session = checkId(id);
    const view = await this.#fold.refresh(signal);
    const context = this.#context(view);
    const info = view.fold.view(session.toString(), context)?.info;
    return { parent: info?.parent, root: info?.root, children: view.fold.childrenOf(session) };
  }

  /** The fold frontier of each source partition, the gaps where records expired before a fold, and where the fold began. */
  async sources(id: ConversationId | string, signal?: AbortSignal): Promise<SessionSourcesView> {
    checkId(id);
    const view = await this.#fold.refresh(signal);
    return { sources: view.frontier, gaps: gapsOf(view, undefined), start: view.start };
  }

  /**
   * Folds what the log gained and writes a fold snapshot of this reader's fold to
   * `agent.snapshots` on the session stream (created with one partition when missing), so a new
   * process starts from it instead of the retained start.
   * @throws CodecError when the fold is beyond the snapshot size limit (16 MiB).
   */
  snapshot(signal?: AbortSignal): Promise<FoldSnapshotWritten> {
    return this.#fold.snapshot(signal);
  }

  /** The newest change-feed sequence (where a watcher starts). */
  async latestChange(signal?: AbortSignal): Promise<bigint> {
    return (await this.#fold.refresh(signal)).seq;
  }

  /**
   * The stream's change feed: one row per lane or control record, numbered in broker-time order
   * from 1. Poll with the last sequence seen. Sequence numbers follow the retained log, so an
   * expired record moves the floor up and a reader behind it gets `resync`. A poll after a
   * recent sequence is served from the reader's fold; one from before the reader's window reads
   * the log.
   */
  async changes(after: bigint = 0n, limit = 1000, signal?: AbortSignal): Promise<SessionChangesView> {
    if (typeof after !== 'bigint' || after < 0n) throw new InvalidError('invalid session request: after must be a non-negative bigint', { context: { field: 'after' } });
    const size = pageSize(limit, 1000);
    const view = await this.#fold.refresh(signal);
    // Past the newest sequence: the feed was numbered again (a lane topic was recreated and the fold
    // started over), so nothing in this numbering is "after" it. The poller resyncs from the start
    // instead of waiting for the new log to grow past its old sequence.
    const renumbered = after > view.seq;
    const since = renumbered ? 0n : after;
    const floor = view.seqBase + 1n;
    const rows: SessionChangeRow[] = since >= view.windowFrom ? [] : await this.#olderChanges(view, since, size, signal);
    const changes = view.changes;
    const floorSeq = since > view.windowFrom ? since : view.windowFrom;
    // rows are in sequence order: find the first one after `floorSeq` without walking the window
    let low = 0;
    let high = changes.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((changes[mid] as SessionChangeRow).seq > floorSeq) high = mid;
      else low = mid + 1;
    }
    for (let i = low; i < changes.length && rows.length < size; i++) rows.push(changes[i] as SessionChangeRow);
    return { rows, floor, resync: renumbered || (since + 1n < floor && since !== 0n) };
  }

  /**
   * Change rows between `after` and the reader's window, read from the log. A page continues where
   * the previous older page stopped when `after` is at or past it (a poller catching up page by
   * page), so catching up on N rows reads about N records, not N²/2 from the retained start.
   */
  async #olderChanges(view: LaneView, after: bigint, size: number, signal?: AbortSignal): Promise<SessionChangeRow[]> {
    const resume = this.#older !== undefined && this.#older.fold === view.fold && this.#older.seqBase === view.seqBase && this.#older.seq <= after ? this.#older : undefined;
    const ranks = ranksOf(view);
    const ranges: PartitionRange[] = view.frontier
      .filter((f) => f.topic !== HEARTBEAT_TOPIC)
      .map((f) => {
        const from = resume?.positions.get(`${f.topic}\u0000${f.partition}`);
        return { topic: f.topic, topicIndex: ranks.indexOf(f.topic), partition: f.partition, next: from !== undefined && from > f.retainedFrom ? from : f.retainedFrom, head: f.folded, firstSeen: undefined };
      });
    const rows: SessionChangeRow[] = [];
    let seq = resume?.seq ?? view.seqBase;
    // the record the page stopped at is visited but not served: the next page starts with it
    let stoppedAt: { readonly topic: string; readonly partition: number; readonly offset: bigint } | undefined;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await readMerged(
        this.#runtime.client.transport,
        view.stream,
        ranges,
        (r) => {
          if (stop.signal.aborted) return;
          if (seq + 1n > view.windowFrom || rows.length >= size) {
            stoppedAt = { topic: r.topic, partition: r.record.partition, offset: r.record.offset };
            stop.abort('done');
            return;
          }
          seq++;
          if (seq > after && r.conversation !== undefined) {
            rows.push({ seq, sessions: [r.conversation], positions: [{ topic: r.topic, partition: r.record.partition, offset: r.record.offset }] });
          }
        },
        stop.signal,
      );
    } catch (error) {
      if (!stop.signal.aborted || signal?.aborted === true) throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted !== true) {
      const positions = new Map<string, bigint>();
      for (const range of ranges) {
        const stopped = stoppedAt !== undefined && stoppedAt.topic === range.topic && stoppedAt.partition === range.partition;
        positions.set(`${range.topic}\u0000${range.partition}`, stopped ? (stoppedAt as { offset: bigint }).offset : range.next);
      }
      this.#older = { fold: view.fold, seqBase: view.seqBase, seq, positions };
    }
    return rows;
  }
}

const readers = new WeakMap<SessionsRuntime, SessionReads>();

/**
 * The reader of a session factory: the one its `reads` serves, so the state writer's base
 * revision comes from the same kept fold instead of a fold of its own.
 */
export function readsOf(runtime: SessionsRuntime, options?: SessionReadsOptions): SessionReads {
  let reads = readers.get(runtime);
  if (reads === undefined) {
    reads = new SessionReads(runtime, options);
    readers.set(runtime, reads);
  }
  return reads;
}

function ranksOf(view: LaneView): string[] {
  const order: string[] = [];
  for (const f of view.frontier) if (!order.includes(f.topic)) order.push(f.topic);
  return order;
}

/**
 * What the state writer builds on: the revision and document readers hold, and every op id they
 * applied, taken from the kept state fold (the history a read shows is only the newest
 * {@link MAX_STATE_HISTORY} changes, and a repeat of any older op id is still a duplicate).
 */
export async function readStateBase(
  runtime: SessionsRuntime,
  session: ConversationId,
  signal?: AbortSignal,
  reads: SessionReads = readsOf(runtime),
): Promise<{ readonly revision: bigint; readonly document: JsonValue | undefined; readonly opIds: readonly { readonly partition: string; readonly offset: bigint; readonly key: string }[] }> {
  const state = (await reads.foldedState(session, signal)).folded?.state;
  const fold = state?.fold;
  // the op ids the readers hold, with where each was applied, so the writer forgets them when they do
  const opIds = [...(state?.opIds?.partitions() ?? [])].flatMap(([partition, entries]) => entries.map((e) => ({ partition, offset: e.offset, key: e.key })));
  return { revision: fold?.revision ?? 0n, document: fold?.document === undefined ? undefined : structuredClone(fold.document), opIds };
}

/** Folds a session's state records for the state read. */
export async function readSessionState(
  runtime: SessionsRuntime,
  session: ConversationId,
  historyLimit: number,
  signal?: AbortSignal,
  reads: SessionReads = readsOf(runtime),
): Promise<SessionStateView> {
  if (!Number.isSafeInteger(historyLimit) || historyLimit < 0) throw new InvalidError('invalid session request: history limit', { context: { field: 'historyLimit' } });
  const { folded, view } = await reads.foldedState(session, signal);
  // the fold kept the state folded record by record: a read copies the document out, nothing more
  const fold = folded?.state.fold;
  const history = folded?.state.history ?? [];
  const first = folded?.state.first;
  const lane = view.frontier.filter((f) => f.topic === SESSIONS_TOPIC);
  const complete = first === undefined || first === 'snapshot' || lane.every((f) => f.retainedFrom === 0n);
  const document = fold?.document === undefined ? undefined : structuredClone(fold.document);
  return { revision: fold?.revision ?? 0n, document, history: history.slice(Math.max(0, history.length - Math.min(historyLimit, MAX_STATE_HISTORY))), complete };
}
