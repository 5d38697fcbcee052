/**
 * Incremental GetTask reads: what a bridge keeps per task between calls (the per-partition next
 * offsets, how deep each partition has been scanned, and the task state folded so far), so a
 * repeated GetTask reads only the replies appended since the previous one.
 */

import { describePlaces, type AgdxClient } from '@agdx/agents';
import { CountedReplies, type CountedReply, type TaskReading } from './counted-replies.js';
import { isTerminalA2aState, type A2aTask } from './task.js';

/** Tasks a bridge keeps GetTask read state for; the least recently asked is dropped first. */
export const KEPT_TASK_READS = 256;

type Transport = AgdxClient['transport'];

/** A record as the transport returns it. */
export type ReadRecord = Awaited<ReturnType<Transport['read']>>[number];

/** One partition a task's replies may sit on. */
export interface TaskAddress {
  readonly stream: string;
  readonly topic: string;
  readonly partition: number;
}

/** How far GetTask looks: passes over each partition per call, and records per partition per pass. */
export interface TaskScanLimits {
  readonly passes: number;
  readonly recordsPerPartition: number;
}

/**
 * What a read makes of one record: the task it describes and the reply's record id, `undefined`
 * to skip it. It may throw (a LayoutMismatchError, say): the read then fails and keeps nothing of
 * what it read.
 */
export type JudgeRecord = (record: ReadRecord, at: TaskAddress & { readonly partitionCount: number }) => Promise<CountedReply | undefined>;

/** Where one partition stands: the generation it was read under, the next offset, and the records scanned since its start. */
export interface Cursor {
  readonly address: TaskAddress;
  readonly generation: bigint | undefined;
  readonly partitionCount: number;
  /** The next offset to read. */
  next: bigint;
  /** Records read since the partition's start (the seed's depth limit counts these). */
  scanned: number;
}

interface TaskRead {
  cursors: Cursor[];
  /** The first terminal reply found: it wins, and nothing after it is read. */
  terminal: A2aTask | undefined;
  /** The latest non-terminal reply found. */
  latest: A2aTask | undefined;
  /** The non-terminal replies that counted, so a copy of one never becomes the latest. */
  counted: CountedReplies;
  /** Calls on one task run one after another. */
  queue: Promise<unknown>;
}

function sameAddresses(a: readonly TaskAddress[], b: readonly TaskAddress[]): boolean {
  return a.length === b.length && a.every((x, i) => x.stream === b[i]?.stream && x.topic === b[i]?.topic && x.partition === b[i]?.partition);
}

/**
 * The GetTask reads of one bridge, kept per task (at most {@link KEPT_TASK_READS}, least recently
 * asked dropped). A read continues every partition from its kept offset up to the partition's end
 * at the time of the call; it starts over from the partitions' start when the addresses changed
 * (layout or partition count) or a topic's generation changed (its `createdAtMicros`, its
 * partition count, or an end below the kept offset: the topic was deleted and recreated). The
 * seed's depth limit holds across calls: a partition is scanned at most `passes ×
 * recordsPerPartition` records from its start, and one call reads at most `passes` batches of
 * `recordsPerPartition` records per partition.
 */
export class TaskReads {
  readonly #limits: TaskScanLimits;
  readonly #kept = new Map<string, TaskRead>();

  /** @param limits how far a task's reads look (seed 002: 32 passes of 10,000 records). */
  constructor(limits: TaskScanLimits) {
    this.#limits = limits;
  }

  /** Forgets every kept read (the next GetTask of each task reads from the start). */
  clear(): void {
    this.#kept.clear();
  }

  /**
   * Runs `work` while no read of `task` runs, and forgets the task's kept read afterwards, so the
   * next read judges every record again. CancelTask appends its own cancel this way, so that no
   * read passes over the cancel before the bridge knows where it is.
   */
  exclusive<T>(task: string, work: () => Promise<T>): Promise<T> {
    const entry = this.#entry(task);
    const run = entry.queue.then(work, work).finally(() => {
      if (this.#kept.get(task) === entry) this.#kept.delete(task);
    });
    entry.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The task as the replies on `addresses` tell it, continuing the kept read of `task`: the first
   * terminal reply, else the latest non-terminal one, else `undefined`.
   */
  async read(task: string, transport: Transport, addresses: readonly TaskAddress[], judge: JudgeRecord, signal?: AbortSignal): Promise<A2aTask | undefined> {
    return (await this.reading(task, transport, addresses, judge, signal)).task;
  }

  /** {@link TaskReads.read}, with a copy of the record ids of the task's non-terminal replies that counted. */
  reading(task: string, transport: Transport, addresses: readonly TaskAddress[], judge: JudgeRecord, signal?: AbortSignal): Promise<TaskReading> {
    const entry = this.#entry(task);
    const run = entry.queue.then(() => this.#advance(entry, transport, addresses, judge, signal));
    entry.queue = run.catch(() => undefined);
    return run;
  }

  #entry(task: string): TaskRead {
    let entry = this.#kept.get(task);
    if (entry !== undefined) {
      // re-inserted: a Map iterates in insertion order, so the first key is the least recently asked
      this.#kept.delete(task);
    } else {
      entry = { cursors: [], terminal: undefined, latest: undefined, counted: new CountedReplies(), queue: Promise.resolve() };
    }
    this.#kept.set(task, entry);
    while (this.#kept.size > KEPT_TASK_READS) {
      const oldest = this.#kept.keys().next().value;
      if (oldest === undefined) break;
      this.#kept.delete(oldest);
    }
    return entry;
  }

  async #advance(entry: TaskRead, transport: Transport, addresses: readonly TaskAddress[], judge: JudgeRecord, signal: AbortSignal | undefined): Promise<TaskReading> {
    const described = await describePlaces(transport, addresses, signal);
    const kept = entry.cursors;
    const stale =
      !sameAddresses(
        kept.map((c) => c.address),
        addresses,
      ) || described.some((d, i) => d.generation !== kept[i]?.generation || d.partitionCount !== kept[i]?.partitionCount || d.end < (kept[i]?.next ?? 0n));
    // Work on copies, so a failed or cancelled read leaves the kept state as it was.
    const cursors: Cursor[] = stale
      ? described.map((d) => ({ address: d.address, generation: d.generation, partitionCount: d.partitionCount, next: 0n, scanned: 0 }))
      : kept.map((c) => ({ ...c }));
    let terminal = stale ? undefined : entry.terminal;
    let latest = stale ? undefined : entry.latest;
    const counted = stale ? new CountedReplies() : entry.counted.clone();
    const depth = this.#limits.passes * this.#limits.recordsPerPartition;
    const done = new Set<number>();
    for (let pass = 0; pass < this.#limits.passes && terminal === undefined; pass++) {
      let progressed = false;
      for (const [at, cursor] of cursors.entries()) {
        if (terminal !== undefined) break;
        const end = described[at]?.end ?? 0n;
        if (done.has(at) || cursor.next >= end || cursor.scanned >= depth) continue;
        const maxCount = Math.min(this.#limits.recordsPerPartition, depth - cursor.scanned);
        const records = await transport.read({ ...cursor.address, offset: cursor.next, maxCount, signal });
        if (records.length === 0) {
          done.add(at);
          continue;
        }
        progressed = true;
        for (const record of records) {
          // Records appended after the call began are left for the next call.
          if (record.offset >= end) {
            done.add(at);
            break;
          }
          cursor.next = record.offset + 1n;
          cursor.scanned += 1;
          // A judge that throws (a record contradicting the layout) fails the call and leaves the
          // kept state before that record, so every later call fails the same way.
          const reply = await judge(record, { ...cursor.address, partitionCount: cursor.partitionCount });
          if (reply === undefined) continue;
          if (isTerminalA2aState(reply.found.state)) {
            terminal = reply.found;
            break;
          }
          if (counted.isCopy(reply.record)) continue;
          counted.add(reply.record);
          latest = reply.found;
        }
      }
      if (!progressed) break;
    }
    entry.cursors = cursors;
    entry.terminal = terminal;
    entry.latest = latest;
    entry.counted = counted;
    return { task: terminal ?? latest, counted: counted.clone() };
  }
}
