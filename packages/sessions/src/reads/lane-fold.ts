import { checkLayoutDeclaration, LayoutMismatchError, layoutTopics, locateRecords, SESSIONS_TOPIC, type StreamLayout } from '@agdx/agents';
import { partitionForKey, type LogTransport, type TopicDescription } from '@agdx/transport';
import { CodecError, ConversationId, HEARTBEAT_TOPIC, reportSkippedRecord } from '@agdx/wire';
import { FoldSnapshotRejectedError } from '../errors.js';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { encodeFoldImage, type FoldImage } from './fold-image.js';
import { appendFoldSnapshot, checkFoldSnapshot, describeTopic, findFoldSnapshot, SNAPSHOT_TOPIC, type FoldSnapshotWritten } from './fold-snapshot-store.js';
import { readMerged, type PartitionRange } from './merged-read.js';
import { CONTROL_TOPIC, noState, SessionFold } from './session-fold.js';
import type { PartitionFrontier, ScannedRecord } from './scanned-record.js';

/** Change-feed rows a reader keeps; older rows are served by a scan of the log. */
export const CHANGE_WINDOW = 100_000;
/** Sessions whose timelines a reader keeps in memory (least recently asked for is dropped). */
export const MAX_TRACKED_TIMELINES = 256;
/** Gaps a reader remembers (oldest dropped). */
const MAX_GAPS = 1024;

/** A fold gap: records the log no longer held when the fold reached them. */
export interface SourceGap {
  readonly topic: string;
  readonly partition: number;
  readonly from: bigint;
  readonly to: bigint;
  readonly reason: 'expired_before_fold';
}

/** One row of the change feed. */
export interface SessionChangeRow {
  readonly seq: bigint;
  readonly sessions: ConversationId[];
  readonly positions: { readonly topic: string; readonly partition: number; readonly offset: bigint }[];
}

/** Where a reader's fold began. */
export interface FoldStart {
  /** `snapshot` when it continued a fold snapshot, `log` when it folded the retained log. */
  readonly from: 'log' | 'snapshot';
  /** The snapshot record it continued (`from: 'snapshot'`). */
  readonly snapshot?: { readonly topic: string; readonly partition: number; readonly offset: bigint } | undefined;
  /** The snapshot it found and refused, when it refused one (then `from` is `log`). */
  readonly rejected?: FoldSnapshotRejectedError | undefined;
}

interface TopicState {
  readonly topic: string;
  readonly topicIndex: number;
  readonly createdAtMicros: bigint | undefined;
  readonly partitions: { readonly partition: number; next: bigint; retainedFrom: bigint | undefined }[];
}

interface FoldState {
  readonly stream: string;
  readonly layout: string;
  readonly names: readonly string[];
  readonly topics: Map<string, TopicState>;
  readonly fold: SessionFold;
  seqBase: bigint;
  seq: bigint;
  /** The window holds every change row after this sequence. */
  windowFrom: bigint;
  /** The newest change rows, oldest first. */
  changes: SessionChangeRow[];
  readonly gaps: SourceGap[];
  readonly start: FoldStart;
  /** Records folded since the last snapshot this reader wrote or started from. */
  sinceSnapshot: number;
}

/** A consistent view of a reader's fold after a refresh. */
export interface LaneView {
  readonly stream: string;
  readonly fold: SessionFold;
  readonly frontier: PartitionFrontier[];
  readonly present: ReadonlySet<string>;
  readonly gaps: readonly SourceGap[];
  readonly seqBase: bigint;
  readonly seq: bigint;
  /** {@link LaneView.changes} holds every change row after this sequence. */
  readonly windowFrom: bigint;
  readonly changes: readonly SessionChangeRow[];
  readonly start: FoldStart;
}

/** A stable text naming a stream layout, stored in snapshots so a reader never continues another layout's fold. */
export function layoutFingerprint(layout: StreamLayout): string {
  switch (layout.kind) {
    case 'perAgentTopic':
      return `perAgentTopic:${JSON.stringify([...layout.topics].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
    case 'perAgentPartition':
      return `perAgentPartition:${JSON.stringify([...layout.partitions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
    default:
      return layout.kind;
  }
}

/**
 * The topics a session read folds: the lane with every topic the client's stream layout sends
 * lane work to (a topic per agent moves commands, replies and chunks off the lane), then control
 * and heartbeats.
 */
export function laneTopics(layout: StreamLayout): readonly string[] {
  return [...layoutTopics(layout, SESSIONS_TOPIC), CONTROL_TOPIC, HEARTBEAT_TOPIC];
}

/**
 * Refuses a read whose layout the log contradicts, instead of folding without the records the
 * layout moved: with a lane present, every topic a topic-per-agent layout declares must exist,
 * and every partition a partition-per-agent layout declares must be within the lane's count.
 * Without a lane nothing was written yet, and the read reports an empty log as before.
 * @throws LayoutMismatchError
 */
function checkLayoutAgainstLog(layout: StreamLayout, stream: string, lane: TopicDescription | undefined, names: readonly string[], described: ReadonlyMap<string, TopicDescription>): void {
  if (lane === undefined) return;
  if (layout.kind === 'perAgentTopic') {
    for (const topic of names) {
      if (topic === SESSIONS_TOPIC || topic === CONTROL_TOPIC || topic === HEARTBEAT_TOPIC || described.has(topic)) continue;
      throw new LayoutMismatchError(`the stream layout declares topic ${topic}, which the log does not have: it was written with another layout`, { context: { stream, topic } });
    }
  } else if (layout.kind === 'perAgentPartition') {
    for (const [agent, partition] of layout.partitions) {
      if (partition < lane.partitions.length) continue;
      throw new LayoutMismatchError(`the stream layout declares partition ${partition} of ${SESSIONS_TOPIC} for ${agent}, beyond its ${lane.partitions.length} partitions: the log was written with another layout`, {
        context: { stream, topic: SESSIONS_TOPIC, partition },
      });
    }
  }
}

/** True when `described` is not the topic generation `state` folded. */
function replaced(state: TopicState, described: TopicDescription | undefined): boolean {
  if (described === undefined) return true;
  if (state.createdAtMicros !== described.createdAtMicros) return true;
  if (described.partitions.length !== state.partitions.length) return true;
  return state.partitions.some((p, i) => described.partitions[i]?.partition !== p.partition || (described.partitions[i]?.nextOffset ?? 0n) < p.next);
}

function countExpired(state: FoldState, unseen: Set<PartitionRange>, scanned: ScannedRecord): void {
  for (const range of unseen) {
    if (range.topic !== scanned.topic || range.partition !== scanned.record.partition) continue;
    unseen.delete(range);
    const expired = scanned.record.offset;
    if (expired === 0n) return;
    if (state.changes.length === 0 && state.windowFrom === state.seq) state.windowFrom += expired;
    state.seqBase += expired;
    state.seq += expired;
    return;
  }
}

function trimChanges(state: FoldState): void {
  const dropped = state.changes.length - CHANGE_WINDOW;
  if (dropped <= 0) return;
  state.windowFrom = (state.changes[dropped - 1] as SessionChangeRow).seq;
  state.changes = state.changes.slice(dropped);
}

/**
 * The partitions of each folded topic where the stream layout puts a session's lane and control
 * records: the session's own partition, and the partitions or topics a per-agent layout moves
 * addressed work to. Heartbeats are left out (they are per agent, not per session).
 */
async function sessionPartitions(layout: StreamLayout, session: ConversationId, topics: ReadonlyMap<string, TopicState>): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  const key = session.toString();
  for (const named of [SESSIONS_TOPIC, CONTROL_TOPIC]) {
    for (const route of locateRecords(layout, { topic: named, conversation: key })) {
      const t = topics.get(route.topic);
      if (t === undefined || t.topic === HEARTBEAT_TOPIC) continue;
      const routing = route.routing as { readonly partition?: number; readonly key?: string };
      const partition = routing.partition ?? (await partitionForKey(routing.key ?? key, t.partitions.length));
      let set = out.get(route.topic);
      if (set === undefined) out.set(route.topic, (set = new Set()));
      set.add(partition);
    }
  }
  return out;
}

/**
 * A session reader's fold of the lane, control and heartbeat topics, kept between reads: it
 * holds per-partition resume offsets with the folded summaries and continues from there, so a
 * read costs what the log gained since the previous one. A new reader starts from the newest
 * session fold snapshot of its stream when one checks out against the log, else from the
 * retained start. A topic deleted and recreated, or a change of stream or layout, discards the
 * fold and folds again. Reads are serialised: one refresh at a time.
 */
export class LaneFold {
  readonly #runtime: SessionsRuntime;
  readonly #useSnapshots: boolean;
  readonly #snapshotEvery: number | undefined;
  #state: FoldState | undefined;
  /** Sessions whose timelines are kept, least recently asked for first. */
  readonly #tracked = new Map<string, true>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(runtime: SessionsRuntime, options: { readonly snapshots?: boolean | undefined; readonly snapshotEvery?: number | undefined } = {}) {
    this.#runtime = runtime;
    this.#useSnapshots = options.snapshots ?? true;
    this.#snapshotEvery = options.snapshotEvery;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Folds what the log gained since the last read and returns the view. */
  refresh(signal?: AbortSignal): Promise<LaneView> {
    return this.#serial(async () => {
      const view = await this.#refresh(signal);
      const every = this.#snapshotEvery;
      const state = this.#state;
      if (every !== undefined && state !== undefined && state.sinceSnapshot >= every) {
        try {
          await this.#writeSnapshot(view, signal);
        } catch (error) {
          if (signal?.aborted === true) throw error;
          // The read itself succeeded: an automatic snapshot that cannot be written (too large, the
          // append refused) is reported and tried again after another `snapshotEvery` records.
          state.sinceSnapshot = 0;
          this.#report(error, view.stream);
        }
      }
      return view;
    });
  }

  /**
   * Refreshes, then makes sure the fold holds the state records of `session` and, with
   * `timeline`, its whole timeline (folding that session from the retained start once, when it
   * was restored from a snapshot or its timeline was not kept).
   */
  complete(session: ConversationId, timeline: boolean, signal?: AbortSignal): Promise<LaneView> {
    return this.#serial(async () => {
      const view = await this.#refresh(signal);
      await this.#complete(session, timeline, view, signal);
      return view;
    });
  }

  /** Refreshes and writes a fold snapshot of the result to {@link SNAPSHOT_TOPIC}. */
  snapshot(signal?: AbortSignal): Promise<FoldSnapshotWritten> {
    return this.#serial(async () => this.#writeSnapshot(await this.#refresh(signal), signal));
  }

  #report(error: unknown, stream: string): void {
    const onError = this.#runtime.onError;
    if (onError === undefined) return;
    const reported = error instanceof CodecError ? error : new CodecError('an automatic fold snapshot could not be written', { cause: error, context: { stream, topic: SNAPSHOT_TOPIC } });
    try {
      onError(reported);
    } catch {
      // a throwing handler must not fail the read it reports on
    }
  }

  async #refresh(signal?: AbortSignal): Promise<LaneView> {
    const runtime = this.#runtime;
    const transport = runtime.client.transport;
    const stream = runtime.stream();
    const names = laneTopics(runtime.client.layout);
    const layout = layoutFingerprint(runtime.client.layout);
    const described = new Map<string, TopicDescription>();
    for (const topic of names) {
      const d = await describeTopic(transport, stream, topic, signal);
      if (d !== undefined) described.set(topic, d);
    }
    const lane = described.get(SESSIONS_TOPIC);
    checkLayoutAgainstLog(runtime.client.layout, stream, lane, names, described);
    // one describe (a one-record read when the declaration changed), so a poll stays flat
    await checkLayoutDeclaration(transport, stream, runtime.client.layout, { signal });
    runtime.lane.observe(stream, lane?.partitions.length);
    let state = this.#state;
    if (state !== undefined && (state.stream !== stream || state.layout !== layout || state.names.join('\n') !== names.join('\n') || [...state.topics.values()].some((t) => replaced(t, described.get(t.topic))))) {
      state = undefined;
      this.#dropTimelines();
    }
    if (state === undefined) {
      const fromSnapshot = this.#useSnapshots ? await this.#fromSnapshot(stream, layout, names, described, signal) : { state: undefined, rejected: undefined };
      state = fromSnapshot.state ?? this.#fresh(stream, layout, names, fromSnapshot.rejected);
      this.#state = state;
    }
    for (const [topic, d] of described) {
      if (state.topics.has(topic)) continue;
      state.topics.set(topic, {
        topic,
        topicIndex: names.indexOf(topic),
        createdAtMicros: d.createdAtMicros,
        partitions: d.partitions.map((p) => ({ partition: p.partition, next: 0n, retainedFrom: undefined })),
      });
    }
    const ranges: { range: PartitionRange; from: bigint; target: TopicState['partitions'][number]; topic: string }[] = [];
    for (const t of state.topics.values()) {
      const d = described.get(t.topic) as TopicDescription;
      t.partitions.forEach((p, i) => {
        const head = d.partitions[i]?.nextOffset ?? p.next;
        ranges.push({ range: { topic: t.topic, topicIndex: t.topicIndex, partition: p.partition, next: p.next, head, firstSeen: undefined }, from: p.next, target: p, topic: t.topic });
      });
    }
    // Partitions read from offset 0 for the first time: the offset of their first record counts
    // the records that expired before any fold, which the change feed numbers as gone.
    const unseen = new Set(ranges.filter((r) => r.target.retainedFrom === undefined && r.from === 0n && r.topic !== HEARTBEAT_TOPIC).map((r) => r.range));
    const current = state;
    const visit = (scanned: ScannedRecord): void => {
      current.fold.apply(scanned);
      current.sinceSnapshot++;
      if (scanned.topic === HEARTBEAT_TOPIC) return;
      if (unseen.size > 0) countExpired(current, unseen, scanned);
      current.seq++;
      if (scanned.conversation === undefined) return;
      current.changes.push({ seq: current.seq, sessions: [scanned.conversation], positions: [{ topic: scanned.topic, partition: scanned.record.partition, offset: scanned.record.offset }] });
      if (current.changes.length >= CHANGE_WINDOW * 2) trimChanges(current);
    };
    try {
      await readMerged(transport, stream, ranges.map((r) => r.range), visit, signal, runtime.onError);
    } finally {
      for (const { range, from, target, topic } of ranges) {
        // a partition whose read moved without a first record lost everything below its head to expiry
        const end = range.next;
        const firstHeld = range.firstSeen ?? (end > from ? end : undefined);
        if (firstHeld !== undefined && firstHeld > from) {
          state.gaps.push({ topic, partition: range.partition, from, to: firstHeld, reason: 'expired_before_fold' });
          if (state.gaps.length > MAX_GAPS) state.gaps.splice(0, state.gaps.length - MAX_GAPS);
        }
        target.retainedFrom ??= firstHeld;
        target.next = end;
      }
    }
    if (state.changes.length > CHANGE_WINDOW) trimChanges(state);
    return this.#view(state, described);
  }

  #view(state: FoldState, described: ReadonlyMap<string, TopicDescription>): LaneView {
    const frontier: PartitionFrontier[] = [];
    for (const topic of state.names) {
      const t = state.topics.get(topic);
      if (t === undefined) continue;
      t.partitions.forEach((p, i) => {
        const head = described.get(topic)?.partitions[i]?.nextOffset ?? p.next;
        frontier.push({ topic, partition: p.partition, retainedFrom: p.retainedFrom ?? p.next, folded: p.next, head: head > p.next ? head : p.next });
      });
    }
    return {
      stream: state.stream,
      fold: state.fold,
      frontier,
      present: new Set(state.topics.keys()),
      gaps: state.gaps,
      seqBase: state.seqBase,
      seq: state.seq,
      windowFrom: state.windowFrom,
      changes: state.changes,
      start: state.start,
    };
  }

  #fresh(stream: string, layout: string, names: readonly string[], rejected: FoldSnapshotRejectedError | undefined): FoldState {
    return {
      stream,
      layout,
      names,
      topics: new Map(),
      fold: new SessionFold(stream, { keepEvents: (key) => this.#tracked.has(key), onError: this.#runtime.onError }),
      seqBase: 0n,
      seq: 0n,
      windowFrom: 0n,
      changes: [],
      gaps: [],
      start: { from: 'log', rejected },
      sinceSnapshot: 0,
    };
  }

  #dropTimelines(): void {
    this.#tracked.clear();
  }

  async #complete(session: ConversationId, timeline: boolean, view: LaneView, signal?: AbortSignal): Promise<void> {
    const key = session.toString();
    const state = this.#state as FoldState;
    const entry = state.fold.accs.get(key);
    // state records are kept for every session the fold saw from the start
    if (!timeline && (entry === undefined || !entry.acc.partial)) return;
    if (this.#tracked.has(key)) {
      this.#tracked.delete(key);
      this.#tracked.set(key, true);
      if (entry === undefined || !entry.acc.partial) return;
    }
    if (entry !== undefined) {
      const one = new SessionFold(state.stream, { only: session });
      const ranges: PartitionRange[] = [];
      const homes = await sessionPartitions(this.#runtime.client.layout, session, state.topics);
      for (const t of state.topics.values()) {
        const wanted = homes.get(t.topic);
        if (wanted === undefined) continue;
        for (const p of t.partitions) {
          if (wanted.has(p.partition)) ranges.push({ topic: t.topic, topicIndex: t.topicIndex, partition: p.partition, next: 0n, head: p.next, firstSeen: undefined });
        }
      }
      // the records were reported to onError when the main fold met them
      await readMerged(this.#runtime.client.transport, view.stream, ranges, (r) => one.apply(r), signal);
      const refolded = one.accs.get(key)?.acc;
      entry.acc.events = refolded?.events ?? [];
      entry.acc.state = refolded?.state ?? noState();
      entry.acc.partial = false;
    }
    this.#tracked.set(key, true);
    while (this.#tracked.size > MAX_TRACKED_TIMELINES) {
      const oldest = this.#tracked.keys().next().value as string;
      this.#tracked.delete(oldest);
      const dropped = state.fold.accs.get(oldest);
      if (dropped !== undefined) dropped.acc.events = [];
    }
  }

  async #fromSnapshot(
    stream: string,
    layout: string,
    names: readonly string[],
    described: ReadonlyMap<string, TopicDescription>,
    signal?: AbortSignal,
  ): Promise<{ state: FoldState | undefined; rejected: FoldSnapshotRejectedError | undefined }> {
    const found = await findFoldSnapshot(this.#runtime.client.transport, stream, signal);
    if (found === undefined) return { state: undefined, rejected: undefined };
    let image: FoldImage;
    try {
      image = await checkFoldSnapshot(found, { stream, layout, names, described });
    } catch (error) {
      if (!(error instanceof FoldSnapshotRejectedError)) throw error;
      reportSkippedRecord(this.#runtime.onError, { stream, topic: SNAPSHOT_TOPIC, partition: found.partition, offset: found.offset }, error);
      return { state: undefined, rejected: error };
    }
    const topics = new Map<string, TopicState>();
    for (const t of image.topics) {
      topics.set(t.topic, { topic: t.topic, topicIndex: names.indexOf(t.topic), createdAtMicros: t.createdAtMicros, partitions: t.partitions.map((p) => ({ ...p })) });
    }
    const restored = new SessionFold(stream, { keepEvents: (key) => this.#tracked.has(key), onError: this.#runtime.onError, redelivery: image.fold.redelivery });
    for (const [key, entry] of image.fold.accs) restored.restore(key, entry);
    for (const [key, ts] of image.fold.heartbeats) restored.heartbeats.set(key, ts);
    const state: FoldState = {
      stream,
      layout,
      names,
      topics,
      fold: restored,
      seqBase: image.seqBase,
      seq: image.seq,
      windowFrom: image.seq,
      changes: [],
      gaps: [],
      start: { from: 'snapshot', snapshot: { topic: SNAPSHOT_TOPIC, partition: found.partition, offset: found.offset } },
      sinceSnapshot: 0,
    };
    return { state, rejected: undefined };
  }

  async #writeSnapshot(view: LaneView, signal?: AbortSignal): Promise<FoldSnapshotWritten> {
    const state = this.#state as FoldState;
    const transport = this.#runtime.client.transport;
    const image: FoldImage = {
      stream: state.stream,
      layout: state.layout,
      topics: state.names
        .map((name) => state.topics.get(name))
        .filter((t): t is TopicState => t !== undefined)
        .map((t) => ({ topic: t.topic, createdAtMicros: t.createdAtMicros, partitions: t.partitions.map((p) => ({ partition: p.partition, next: p.next, retainedFrom: p.retainedFrom ?? p.next })) })),
      seqBase: state.seqBase,
      seq: state.seq,
      fold: state.fold,
    };
    const payload = await encodeFoldImage(image);
    const at = await appendFoldSnapshot(transport, view.stream, payload, signal);
    state.sinceSnapshot = 0;
    return { topic: SNAPSHOT_TOPIC, partition: at.partition, offset: at.offset, bytes: payload.length, sessions: state.fold.accs.size };
  }
}
