/**
 * The reply index of one bridge: for every task whose replies it has read, where its first
 * terminal reply and its latest non-terminal reply sit, built incrementally from each partition's
 * last read offset up to its end. A GetTask then reads only the records appended since the
 * previous GetTask of any task, and an id with no reply reads nothing at all. The index is a cache
 * of the log, never the truth: it is rebuilt from the start when a topic is recreated, and a task
 * it dropped to stay under its cap is answered by the bounded per-task scan instead.
 */

import { describePlaces, type AgdxClient } from '@agdx/agents';
import { InvalidError } from '@agdx/wire';
import { EvictedIds } from './evicted-ids.js';
import { isTerminalA2aState, type A2aTask } from './task.js';
import { KEPT_TASK_READS, type Cursor, type ReadRecord, type TaskAddress, type TaskScanLimits } from './task-reads.js';

/** Tasks a bridge's reply index keeps by default; the least recently asked or answered is dropped first. */
export const TASK_INDEX_LIMIT = 32_768;

/**
 * Replies of one task on one place the index holds unverified (under a verifier, a reply is
 * verified when its task is asked, not when the index meets it); past this the task is answered
 * by the per-task scan instead, so forgeries aimed at one task cannot grow the index.
 */
export const PENDING_REPLIES_PER_TASK = 16;

/** The largest cap {@link TaskIndex} accepts. */
const MAX_TASK_INDEX_LIMIT = 1 << 24;

type Transport = AgdxClient['transport'];

/** One reply the index kept: its offset and the broker's append time. */
interface Hit {
  readonly offset: bigint;
  readonly micros: bigint;
}

/** A task's kept replies on one place. */
interface PlaceHits {
  readonly place: string;
  terminal: Hit | undefined;
  latest: Hit | undefined;
  /** Replies met after `terminal`/`latest` and not yet verified, oldest first. */
  pending: Hit[];
  /** More than {@link PENDING_REPLIES_PER_TASK} replies waited for verification: only a scan can answer. */
  overflow: boolean;
}

/**
 * What a record tells: the task it answers (its id text), the task as that reply leaves it, and
 * whether it still has to be verified before it counts (then {@link SettleReply} decides).
 */
export interface IndexedReply {
  readonly task: string;
  readonly found: A2aTask;
  readonly unverified: boolean;
}

/**
 * What the index makes of one record of a place: the reply it is, or `undefined` to skip it. It
 * may throw (a LayoutMismatchError, say): the call fails, and the index stays before that record.
 */
export type IndexRecord = (record: ReadRecord, at: TaskAddress & { readonly partitionCount: number }) => Promise<IndexedReply | undefined>;

/** The task a kept reply gives, read back from the log (`undefined` when it no longer decodes). */
export type RereadReply = (record: ReadRecord, at: TaskAddress & { readonly partitionCount: number }, task: string) => A2aTask | undefined;

/** The task an unverified reply gives when it is trusted, `undefined` when it is refused. */
export type SettleReply = (record: ReadRecord, at: TaskAddress & { readonly partitionCount: number }, task: string) => Promise<A2aTask | undefined>;

/** How the index reads records: `judge` when it meets them, `reread` and `settle` when a task is asked. */
export interface IndexReaders {
  readonly judge: IndexRecord;
  readonly reread: RereadReply;
  readonly settle: SettleReply;
}

/**
 * A lookup's answer: `found` (the task as its replies leave it), `none` (no reply on the places
 * asked, within the scan limits) or `unknown` (the index dropped the task, or may have: only a
 * scan of the task's places can tell).
 */
export type IndexAnswer = { readonly kind: 'found'; readonly task: A2aTask } | { readonly kind: 'none' } | { readonly kind: 'unknown' };

const NONE: IndexAnswer = { kind: 'none' };
const UNKNOWN: IndexAnswer = { kind: 'unknown' };

function placeKey(address: TaskAddress): string {
  return `${address.stream}\u0000${address.topic}\u0000${address.partition}`;
}

/** True when reply `b` came before reply `a` (by append time, the first place asked on a tie), or there is no `a`. */
function earlier(a: { hit: Hit; rank: number } | undefined, b: { hit: Hit; rank: number }): boolean {
  return a === undefined || b.hit.micros < a.hit.micros || (b.hit.micros === a.hit.micros && b.rank < a.rank);
}

/**
 * The reply index (see the module comment). Calls run one after another. Each place is read at
 * most `passes × recordsPerPartition` records deep from its start (seed 002's limit), and one
 * call reads at most `passes` batches of `recordsPerPartition` records per place. At most
 * `limit` tasks are kept; a dropped task's id goes into a fixed-size filter ({@link EvictedIds}),
 * and a lookup of an id the filter holds answers `unknown`, never `none`. The task as a kept
 * reply leaves it is itself kept for the {@link KEPT_TASK_READS} tasks most recently asked, so a
 * repeated GetTask with nothing new reads no record. Replies the judge marks unverified wait (at
 * most {@link PENDING_REPLIES_PER_TASK} per task and place) until their task is asked, and are
 * settled then, oldest first.
 */
export class TaskIndex {
  readonly #limits: TaskScanLimits;
  #limit: number;
  readonly #cursors = new Map<string, Cursor>();
  /** Task id → its kept replies per place; a Map iterates oldest first, which is the drop order. */
  readonly #tasks = new Map<string, PlaceHits[]>();
  /** Task id → the task its chosen reply gave, for the most recently asked tasks. */
  readonly #answers = new Map<string, { readonly place: string; readonly offset: bigint; readonly task: A2aTask }>();
  #evicted = new EvictedIds();
  #queue: Promise<unknown> = Promise.resolve();
  /** Bumped by {@link clear}: a lookup that began before it keeps nothing it reads afterwards. */
  #epoch = 0;

  /**
   * @param limits how deep each place is read (seed 002: 32 passes of 10,000 records).
   * @param limit the most tasks kept.
   */
  constructor(limits: TaskScanLimits, limit: number = TASK_INDEX_LIMIT) {
    this.#limits = limits;
    this.#limit = TaskIndex.checkedLimit(limit);
  }

  /**
   * A valid cap: an integer from 1 to 16,777,216.
   * @throws InvalidError otherwise.
   */
  static checkedLimit(limit: unknown): number {
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_TASK_INDEX_LIMIT) {
      throw new InvalidError(`the task index limit must be an integer from 1 to ${MAX_TASK_INDEX_LIMIT}`, { context: { field: 'taskIndexLimit' } });
    }
    return limit;
  }

  /** How many tasks the index keeps now. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Sets the cap and forgets everything (the next lookup reads every place from its start). */
  setLimit(limit: number): void {
    this.#limit = TaskIndex.checkedLimit(limit);
    this.clear();
  }

  /** Forgets everything: the verdicts depend on the bridge's reply policy, and the places on its stream. */
  clear(): void {
    this.#epoch += 1;
    this.#reset();
  }

  // Lookups run one at a time, so only clear() (a setter of the bridge) can change the index
  // under a running one; a lookup that finds a topic recreated resets it without that signal.
  #reset(): void {
    this.#cursors.clear();
    this.#tasks.clear();
    this.#answers.clear();
    this.#evicted = new EvictedIds();
  }

  /**
   * Runs `work` while no lookup runs. CancelTask appends its own cancel this way, so the index
   * never judges that record before the bridge has remembered where it put it.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Brings the index up to the current end of each of `addresses` (the places the stream layout
   * puts the task's replies on, the task's own partition first), then answers for `task` from the
   * replies kept on those places: the first terminal one by append time, else the latest
   * non-terminal one. A kept reply is read back from the log (one record) unless the task it gave
   * is still kept. A failed or aborted call keeps the replies it judged before the failure.
   */
  lookup(task: string, transport: Transport, addresses: readonly TaskAddress[], readers: IndexReaders, signal?: AbortSignal): Promise<IndexAnswer> {
    return this.exclusive(async () => {
      const epoch = this.#epoch;
      await this.#advance(task, transport, addresses, readers.judge, signal);
      // Cleared meanwhile (the reply policy or stream changed): the index cannot answer this call,
      // which began under the old policy; its own scan does.
      if (epoch !== this.#epoch) return UNKNOWN;
      const answer = await this.#answer(task, transport, addresses, readers, signal);
      return epoch === this.#epoch ? answer : UNKNOWN;
    });
  }

  async #advance(task: string, transport: Transport, addresses: readonly TaskAddress[], judge: IndexRecord, signal: AbortSignal | undefined): Promise<void> {
    const described = await describePlaces(transport, addresses, signal);
    // A recreated topic (another generation or partition count, or an end below the kept offset)
    // invalidates every reply kept from it; starting over from nothing is simplest and rare.
    const stale = described.some((d) => {
      const kept = this.#cursors.get(placeKey(d.address));
      return kept !== undefined && (kept.generation !== d.generation || kept.partitionCount !== d.partitionCount || d.end < kept.next);
    });
    if (stale) this.#reset();
    const depth = this.#limits.passes * this.#limits.recordsPerPartition;
    for (const d of described) {
      const key = placeKey(d.address);
      let cursor = this.#cursors.get(key);
      if (cursor === undefined) {
        cursor = { address: d.address, generation: d.generation, partitionCount: d.partitionCount, next: 0n, scanned: 0 };
        this.#cursors.set(key, cursor);
      }
      await this.#readPlace(task, key, cursor, d.end, depth, transport, judge, signal);
    }
  }

  async #readPlace(task: string, key: string, cursor: Cursor, end: bigint, depth: number, transport: Transport, judge: IndexRecord, signal: AbortSignal | undefined): Promise<void> {
    const at = { ...cursor.address, partitionCount: cursor.partitionCount };
    // The bridge's reply policy or stream changed while this call read (clear()): its verdicts
    // are the old policy's, so it keeps nothing more.
    const epoch = this.#epoch;
    for (let pass = 0; pass < this.#limits.passes; pass++) {
      if (cursor.next >= end || cursor.scanned >= depth) return;
      const maxCount = Math.min(this.#limits.recordsPerPartition, depth - cursor.scanned);
      const records = await transport.read({ ...cursor.address, offset: cursor.next, maxCount, signal });
      if (records.length === 0 || epoch !== this.#epoch) return;
      for (const record of records) {
        // Records appended after the call began are left for the next call.
        if (record.offset >= end) return;
        // Judged before the cursor moves: a judge that throws leaves the index before this
        // record, so every later call meets it and fails the same way.
        const reply = await judge(record, at);
        if (epoch !== this.#epoch) return;
        cursor.next = record.offset + 1n;
        cursor.scanned += 1;
        if (reply === undefined) continue;
        const kept = this.#keep(reply.task, key, { offset: record.offset, micros: record.timestampMicros }, isTerminalA2aState(reply.found.state), reply.unverified);
        // The asked task's newest verdict is at hand: keep it, so the answer needs no read back.
        if (kept && reply.task === task) this.#remember(task, key, record.offset, reply.found);
      }
    }
  }

  // Keeps a reply of `task`; true when it is now the place's terminal or latest reply of the task.
  #keep(task: string, place: string, hit: Hit, terminal: boolean, unverified: boolean): boolean {
    let hits = this.#tasks.get(task);
    if (hits === undefined) {
      // Its earlier replies may have been dropped: keeping only the later ones could give a wrong
      // answer, so lookups of it scan instead.
      if (this.#evicted.mightHold(task)) return false;
      hits = [];
    } else {
      this.#tasks.delete(task);
    }
    this.#tasks.set(task, hits);
    let onPlace = hits.find((h) => h.place === place);
    if (onPlace === undefined) {
      onPlace = { place, terminal: undefined, latest: undefined, pending: [], overflow: false };
      hits.push(onPlace);
    }
    // The first terminal on a place wins there; nothing after it matters. A reply behind one
    // still waiting for verification waits too, so replies are settled in the order they came.
    const waits = unverified || onPlace.pending.length > 0;
    const counts = onPlace.terminal === undefined && !onPlace.overflow && !waits;
    if (onPlace.terminal === undefined && !onPlace.overflow && waits) {
      if (onPlace.pending.length < PENDING_REPLIES_PER_TASK) onPlace.pending.push(hit);
      else {
        onPlace.overflow = true;
        onPlace.pending = [];
      }
    }
    if (counts && terminal) onPlace.terminal = hit;
    else if (counts) onPlace.latest = hit;
    while (this.#tasks.size > this.#limit) {
      const oldest = this.#tasks.keys().next().value;
      if (oldest === undefined) break;
      this.#tasks.delete(oldest);
      this.#answers.delete(oldest);
      this.#evicted.add(oldest);
    }
    return counts && this.#tasks.has(task);
  }

  #remember(task: string, place: string, offset: bigint, found: A2aTask): void {
    this.#answers.delete(task);
    this.#answers.set(task, { place, offset, task: found });
    while (this.#answers.size > KEPT_TASK_READS) {
      const oldest = this.#answers.keys().next().value;
      if (oldest === undefined) break;
      this.#answers.delete(oldest);
    }
  }

  // Verifies the task's waiting replies on `address`, oldest first, until one is a trusted terminal.
  // False when a waiting reply is no longer on the log (retention removed it).
  async #settle(task: string, onPlace: PlaceHits, address: TaskAddress, transport: Transport, settle: SettleReply, signal: AbortSignal | undefined): Promise<boolean> {
    const cursor = this.#cursors.get(onPlace.place);
    if (cursor === undefined) return false;
    const epoch = this.#epoch;
    while (onPlace.terminal === undefined && onPlace.pending.length > 0) {
      const hit = onPlace.pending[0] as Hit;
      const [record] = await transport.read({ ...address, offset: hit.offset, maxCount: 1, signal });
      if (record === undefined || record.offset !== hit.offset || epoch !== this.#epoch) return false;
      const found = await settle(record, { ...address, partitionCount: cursor.partitionCount }, task);
      if (epoch !== this.#epoch) return false;
      onPlace.pending.shift();
      if (found === undefined) continue;
      if (isTerminalA2aState(found.state)) {
        onPlace.terminal = hit;
        onPlace.pending = [];
      } else {
        onPlace.latest = hit;
      }
      this.#remember(task, onPlace.place, hit.offset, found);
    }
    return true;
  }

  async #answer(task: string, transport: Transport, addresses: readonly TaskAddress[], readers: IndexReaders, signal: AbortSignal | undefined): Promise<IndexAnswer> {
    const hits = this.#tasks.get(task);
    if (hits === undefined) return this.#evicted.mightHold(task) ? UNKNOWN : NONE;
    // Asked again: it is the newest to keep.
    this.#tasks.delete(task);
    this.#tasks.set(task, hits);
    for (const address of addresses) {
      const onPlace = hits.find((h) => h.place === placeKey(address));
      if (onPlace === undefined) continue;
      if (onPlace.overflow || !(await this.#settle(task, onPlace, address, transport, readers.settle, signal))) return UNKNOWN;
    }
    let terminal: { hit: Hit; rank: number; place: string; address: TaskAddress } | undefined;
    let latest: { hit: Hit; rank: number; place: string; address: TaskAddress } | undefined;
    for (const [rank, address] of addresses.entries()) {
      const place = placeKey(address);
      const onPlace = hits.find((h) => h.place === place);
      if (onPlace === undefined) continue;
      if (onPlace.terminal !== undefined && earlier(terminal, { hit: onPlace.terminal, rank })) terminal = { hit: onPlace.terminal, rank, place, address };
      if (onPlace.latest !== undefined && (latest === undefined || onPlace.latest.micros > latest.hit.micros)) latest = { hit: onPlace.latest, rank, place, address };
    }
    const chosen = terminal ?? latest;
    if (chosen === undefined) return NONE;
    const kept = this.#answers.get(task);
    if (kept !== undefined && kept.place === chosen.place && kept.offset === chosen.hit.offset) {
      this.#remember(task, kept.place, kept.offset, kept.task);
      return { kind: 'found', task: kept.task };
    }
    const cursor = this.#cursors.get(chosen.place);
    const [record] = await transport.read({ ...chosen.address, offset: chosen.hit.offset, maxCount: 1, signal });
    // Gone (retention removed it): only a scan can tell where the task stands now.
    if (record === undefined || record.offset !== chosen.hit.offset || cursor === undefined) return UNKNOWN;
    const found = readers.reread(record, { ...chosen.address, partitionCount: cursor.partitionCount }, task);
    if (found === undefined) return UNKNOWN;
    this.#remember(task, chosen.place, chosen.hit.offset, found);
    return { kind: 'found', task: found };
  }
}
