/**
 * The reply index of one bridge: for every task whose replies it has read, where its first
 * terminal reply and its latest non-terminal reply sit, built incrementally from each partition's
 * last read offset up to its end. A GetTask then reads only the records appended since the
 * previous GetTask of any task, and an id with no reply reads nothing at all. The index is a cache
 * of the log, never the truth: it is rebuilt from the start when a topic is recreated, and a task
 * it dropped to stay under its cap is answered by the bounded per-task scan instead.
 *
 * This file runs lookups; the places' cursors and reading are in `index-places.ts`, the per-task
 * hits in `task-hits.ts`, their verification in `settle-pending.ts`, the queue in `turn-queue.ts`.
 */

import { describePlaces, type AgdxClient } from '@agdx/agents';
import { InvalidError } from '@agdx/wire';
import { PlaceCursors, placeKey, readPlace } from './index-places.js';
import type { IndexAnswer, IndexReaders, IndexRecord } from './index-readers.js';
import { settlePending } from './settle-pending.js';
import { isTerminalA2aState } from './task.js';
import { chooseReply, TaskHits } from './task-hits.js';
import { KEPT_TASK_READS, type TaskAddress, type TaskScanLimits } from './task-reads.js';
import { TurnQueue } from './turn-queue.js';

export type { IndexAnswer, IndexedAt, IndexedReply, IndexReaders, IndexRecord, RereadReply, SettleReply } from './index-readers.js';
export { PENDING_REPLIES_PER_TASK } from './task-hits.js';

/** Tasks a bridge's reply index keeps by default; the least recently asked or answered is dropped first. */
export const TASK_INDEX_LIMIT = 32_768;

/** The largest cap {@link TaskIndex} accepts. */
const MAX_TASK_INDEX_LIMIT = 1 << 24;

type Transport = AgdxClient['transport'];

const NONE: IndexAnswer = { kind: 'none' };
const UNKNOWN: IndexAnswer = { kind: 'unknown' };

/**
 * The reply index (see the module comment). Calls run one after another; a call whose signal
 * aborts while it waits for its turn leaves the queue at once with `CancelledError`. Each place is
 * read at most `passes × recordsPerPartition` records deep from its start (seed 002's limit), and
 * one call reads at most `passes` batches of `recordsPerPartition` records per place. At most
 * `limit` tasks are kept; a dropped task's id goes into a fixed-size filter, and a lookup of an id
 * the filter holds answers `unknown`, never `none`. The task as a kept reply leaves it is itself
 * kept for the {@link KEPT_TASK_READS} tasks most recently asked, so a repeated GetTask with
 * nothing new reads no record. Replies the judge marks unverified wait (at most
 * `PENDING_REPLIES_PER_TASK` per task and place) until their task is asked, and are settled then,
 * oldest first.
 */
export class TaskIndex {
  readonly #limits: TaskScanLimits;
  #limit: number;
  #cursors = new PlaceCursors();
  #hits: TaskHits;
  readonly #queue = new TurnQueue();
  /** Bumped by {@link clear}: a lookup that began before it keeps nothing it reads afterwards. */
  #epoch = 0;

  /**
   * @param limits how deep each place is read (seed 002: 32 passes of 10,000 records).
   * @param limit the most tasks kept.
   */
  constructor(limits: TaskScanLimits, limit: number = TASK_INDEX_LIMIT) {
    this.#limits = limits;
    this.#limit = TaskIndex.checkedLimit(limit);
    this.#hits = new TaskHits(this.#limit);
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
    return this.#hits.size;
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
    this.#cursors = new PlaceCursors();
    this.#hits = new TaskHits(this.#limit);
  }

  /**
   * Runs `work` while no lookup runs. CancelTask appends its own cancel this way, so the index
   * never judges that record before the bridge has remembered where it put it. When `signal`
   * aborts before `work` starts, it rejects with `CancelledError` and `work` never runs.
   */
  exclusive<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#queue.run(work, signal);
  }

  /**
   * Brings the index up to the current end of each of `addresses` (the places the stream layout
   * puts the task's replies on, the task's own partition first), then answers for `task` from the
   * replies kept on those places: the first terminal one by append time, else the latest
   * non-terminal one. A kept reply is read back from the log (one record) unless the task it gave
   * is still kept. A failed or aborted call keeps the replies it judged before the failure; a call
   * aborted while it waits for its turn rejects with `CancelledError` at once and reads nothing.
   * With `withCounted`, a `found` answer also carries a copy of the record ids of the task's
   * non-terminal replies that counted, taken in the same turn (SubscribeToTask passes over copies
   * of them); GetTask does not ask, so it copies nothing.
   */
  lookup(task: string, transport: Transport, addresses: readonly TaskAddress[], readers: IndexReaders, signal?: AbortSignal, withCounted = false): Promise<IndexAnswer> {
    return this.exclusive(async () => {
      const epoch = this.#epoch;
      await this.#advance(task, transport, addresses, readers.judge, signal);
      // Cleared meanwhile (the reply policy or stream changed): the index cannot answer this call,
      // which began under the old policy; its own scan does.
      if (epoch !== this.#epoch) return UNKNOWN;
      const answer = await this.#answer(task, transport, addresses, readers, signal, withCounted);
      return epoch === this.#epoch ? answer : UNKNOWN;
    }, signal);
  }

  async #advance(task: string, transport: Transport, addresses: readonly TaskAddress[], judge: IndexRecord, signal: AbortSignal | undefined): Promise<void> {
    const described = await describePlaces(transport, addresses, signal);
    // A recreated topic invalidates every reply kept from it; starting over from nothing is
    // simplest and rare.
    if (this.#cursors.anyStale(described)) this.#reset();
    for (const d of described) {
      const cursor = this.#cursors.cursorOf(d);
      const key = placeKey(d.address);
      // The bridge's reply policy or stream changed while this call read (clear()): its verdicts
      // are the old policy's, so it keeps nothing more.
      const epoch = this.#epoch;
      await readPlace({
        cursor,
        end: d.end,
        limits: this.#limits,
        transport,
        judge,
        signal,
        current: () => epoch === this.#epoch,
        onReply: (reply, record) => {
          const hit = { offset: record.offset, micros: record.timestampMicros };
          const kept = this.#hits.keep(reply.task, key, hit, isTerminalA2aState(reply.found.state), reply.unverified, reply.record);
          // The asked task's newest verdict is at hand: keep it, so the answer needs no read back.
          if (kept && reply.task === task) this.#hits.remember(task, key, record.offset, reply.found);
        },
      });
    }
  }

  async #answer(task: string, transport: Transport, addresses: readonly TaskAddress[], readers: IndexReaders, signal: AbortSignal | undefined, withCounted: boolean): Promise<IndexAnswer> {
    const taskHits = this.#hits;
    // Asked again: it is the newest to keep.
    const hits = taskHits.touch(task);
    if (hits === undefined) return taskHits.mightHaveDropped(task) ? UNKNOWN : NONE;
    for (const address of addresses) {
      const onPlace = hits.find((h) => h.place === placeKey(address));
      if (onPlace === undefined) continue;
      const cursor = this.#cursors.get(onPlace.place);
      if (onPlace.overflow || cursor === undefined) return UNKNOWN;
      const epoch = this.#epoch;
      const settled = await settlePending({
        task,
        onPlace,
        address,
        partitionCount: cursor.partitionCount,
        transport,
        settle: readers.settle,
        signal,
        current: () => epoch === this.#epoch,
        remember: (offset, found) => taskHits.remember(task, onPlace.place, offset, found),
        counted: () => taskHits.countedOf(task),
      });
      if (!settled) return UNKNOWN;
    }
    const chosen = chooseReply(hits, addresses, placeKey);
    if (chosen === undefined) return NONE;
    const kept = taskHits.answerOf(task);
    if (kept !== undefined && kept.place === chosen.place && kept.offset === chosen.hit.offset) {
      taskHits.remember(task, kept.place, kept.offset, kept.task);
      return { kind: 'found', task: kept.task, counted: withCounted ? taskHits.countedCopyOf(task) : undefined };
    }
    const cursor = this.#cursors.get(chosen.place);
    const [record] = await transport.read({ ...chosen.address, offset: chosen.hit.offset, maxCount: 1, signal });
    // Gone (retention removed it): only a scan can tell where the task stands now.
    if (record === undefined || record.offset !== chosen.hit.offset || cursor === undefined) return UNKNOWN;
    const found = readers.reread(record, { ...chosen.address, partitionCount: cursor.partitionCount }, task);
    if (found === undefined) return UNKNOWN;
    taskHits.remember(task, chosen.place, chosen.hit.offset, found);
    return { kind: 'found', task: found, counted: withCounted ? taskHits.countedCopyOf(task) : undefined };
  }
}
