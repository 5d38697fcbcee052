/**
 * The contract between the reply index and the bridge: how the index reads records (what a record
 * is, what a kept reply gives when read back, whether an unverified reply is trusted) and what a
 * lookup answers.
 */

import type { RecordId } from '@agdx/wire';
import type { CountedReplies, CountedReply } from './counted-replies.js';
import type { A2aTask } from './task.js';
import type { ReadRecord, TaskAddress } from './task-reads.js';

/** Where a record sits: its place and the topic's partition count. */
export type IndexedAt = TaskAddress & { readonly partitionCount: number };

/**
 * What a record tells: the task it answers (its id text), the task as that reply leaves it, the
 * reply's record id (a copy has its original's), and whether it still has to be verified before
 * it counts (then {@link SettleReply} decides).
 */
export interface IndexedReply {
  readonly task: string;
  readonly found: A2aTask;
  readonly record: RecordId | undefined;
  readonly unverified: boolean;
}

/**
 * What the index makes of one record of a place: the reply it is, or `undefined` to skip it. It
 * may throw (a LayoutMismatchError, say): the call fails, and the index stays before that record.
 */
export type IndexRecord = (record: ReadRecord, at: IndexedAt) => Promise<IndexedReply | undefined>;

/** The task a kept reply gives, read back from the log (`undefined` when it no longer decodes). */
export type RereadReply = (record: ReadRecord, at: IndexedAt, task: string) => A2aTask | undefined;

/** The task an unverified reply gives, and its record id, when it is trusted; `undefined` when it is refused. */
export type SettleReply = (record: ReadRecord, at: IndexedAt, task: string) => Promise<CountedReply | undefined>;

/** How the index reads records: `judge` when it meets them, `reread` and `settle` when a task is asked. */
export interface IndexReaders {
  readonly judge: IndexRecord;
  readonly reread: RereadReply;
  readonly settle: SettleReply;
}

/**
 * A lookup's answer: `found` (the task as its replies leave it, and, when the lookup asked for
 * it, a copy of the record ids of its non-terminal replies that counted), `none` (no reply on the places
 * asked, within the scan limits) or `unknown` (the index dropped the task, or may have: only a
 * scan of the task's places can tell).
 */
export type IndexAnswer = { readonly kind: 'found'; readonly task: A2aTask; readonly counted: CountedReplies | undefined } | { readonly kind: 'none' } | { readonly kind: 'unknown' };
