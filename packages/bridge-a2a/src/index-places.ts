/**
 * The per-place half of the reply index: where each place of the reply topic was read up to (its
 * cursor, under the topic's generation and partition count), and the reading of a place from its
 * cursor up to the end it had when the call began.
 */

import type { describePlaces } from '@agdx/agents';
import type { IndexedReply, IndexRecord } from './index-readers.js';
import type { Cursor, ReadRecord, TaskAddress, TaskScanLimits } from './task-reads.js';

type Transport = Parameters<typeof describePlaces>[0];

/** A place as `describePlaces` reports it: its end, generation and partition count. */
export type DescribedPlace = Awaited<ReturnType<typeof describePlaces>>[number];

/** The key the index files a place under. */
export function placeKey(address: TaskAddress): string {
  return `${address.stream}\u0000${address.topic}\u0000${address.partition}`;
}

/** The cursor of every place the index has read, by {@link placeKey}. */
export class PlaceCursors {
  readonly #cursors = new Map<string, Cursor>();

  /** The cursor of the place filed under `key`. */
  get(key: string): Cursor | undefined {
    return this.#cursors.get(key);
  }

  /**
   * True when a described place was recreated since it was read (another generation or partition
   * count, or an end below the kept offset): every reply kept from it is then invalid.
   */
  anyStale(described: readonly DescribedPlace[]): boolean {
    return described.some((d) => {
      const kept = this.#cursors.get(placeKey(d.address));
      return kept !== undefined && (kept.generation !== d.generation || kept.partitionCount !== d.partitionCount || d.end < kept.next);
    });
  }

  /** The cursor of a described place, a new one at its start when it was never read. */
  cursorOf(d: DescribedPlace): Cursor {
    const key = placeKey(d.address);
    let cursor = this.#cursors.get(key);
    if (cursor === undefined) {
      cursor = { address: d.address, generation: d.generation, partitionCount: d.partitionCount, next: 0n, scanned: 0 };
      this.#cursors.set(key, cursor);
    }
    return cursor;
  }
}

/** One read of a place: how, up to where, and what to do with each reply met. */
export interface PlaceRead {
  readonly cursor: Cursor;
  /** The place's end when the call began: records appended since are left for the next call. */
  readonly end: bigint;
  readonly limits: TaskScanLimits;
  readonly transport: Transport;
  readonly judge: IndexRecord;
  readonly signal: AbortSignal | undefined;
  /** False once the index was cleared: the reply policy or stream changed, so keep nothing more. */
  readonly current: () => boolean;
  /** Keeps a reply met at `record`. */
  readonly onReply: (reply: IndexedReply, record: ReadRecord) => void;
}

/**
 * Reads a place from its cursor up to `end`, at most `passes` batches, and never deeper than
 * `passes × recordsPerPartition` records from its start (seed 002's limit). The cursor moves past
 * a record only once it was judged, so a failing judge leaves the place before that record.
 */
export async function readPlace(read: PlaceRead): Promise<void> {
  const { cursor, end, limits } = read;
  const at = { ...cursor.address, partitionCount: cursor.partitionCount };
  const depth = limits.passes * limits.recordsPerPartition;
  for (let pass = 0; pass < limits.passes; pass++) {
    if (cursor.next >= end || cursor.scanned >= depth) return;
    const maxCount = Math.min(limits.recordsPerPartition, depth - cursor.scanned);
    const records = await read.transport.read({ ...cursor.address, offset: cursor.next, maxCount, signal: read.signal });
    if (records.length === 0 || !read.current()) return;
    for (const record of records) {
      // Records appended after the call began are left for the next call.
      if (record.offset >= end) return;
      // Judged before the cursor moves: a judge that throws leaves the index before this
      // record, so every later call meets it and fails the same way.
      const reply = await read.judge(record, at);
      if (!read.current()) return;
      cursor.next = record.offset + 1n;
      cursor.scanned += 1;
      if (reply !== undefined) read.onReply(reply, record);
    }
  }
}
