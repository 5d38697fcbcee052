/**
 * When a consumer on a log whose waits poll (Iggy) reads each partition next. There every read
 * is a request of its own (a socket write and a server turn, on a connection that carries one
 * request at a time), and under load most of an agent's reads came back empty: each partition
 * was read again at once after every read that found records, and every round that found nothing
 * re-read all of them. Here each partition keeps its own schedule, in one of two modes:
 *
 * - Busy (records are arriving on several partitions, {@link QUIET_PARTITIONS} or more): a read
 *   that found records but drained the partition waits, since records have to be appended before
 *   another read can find any: until {@link DRAINED_TARGET_RECORDS} records are expected by the
 *   partition's recent rate, at least {@link DRAINED_PAUSE_MS} and at most
 *   {@link MAX_DRAINED_PAUSE_MS}, so a fast partition is read as before and a slow one yields
 *   batches rather than single records. An empty read waits at least as long (a busy partition
 *   that has had records never pauses less after finding none than after finding some); each
 *   empty read in a row doubles
 *   the partition's pause from {@link EMPTY_PARTITION_PAUSE_MS} up to the consumer's idle wait
 *   (the agent's `pollInterval`); a read that finds records halves it again, so a partition whose
 *   records come every few milliseconds settles near that interval.
 * - Quiet (records on one partition at most, say one request in flight): a read that found one
 *   record is followed at once (one that found several waits {@link DRAINED_PAUSE_MS}, so the
 *   next read takes a batch), and up to {@link HOT_READS} empty reads within
 *   {@link HOT_WINDOW_MS} too, since the next request's record can come any moment; then the
 *   pause doubles from {@link HOT_MIN_PAUSE_MS}. The same holds again once the partition's
 *   records are handled and their answers out ({@link answered}). Few partitions deliver, so
 *   this costs few reads.
 *
 * In both, a read that filled its batch is followed at once (more records may be waiting), and a
 * record waits at most one pause (at most the idle wait) before it is read.
 */

import { DEFAULT_POLL_PACING } from '../clock/poll-pacer.js';

/**
 * The shortest wait of a partition whose last read found records but did not fill the batch,
 * while the consumer is busy. In the TCP load run (32 sessions over 8 partitions, each record read
 * by 4 agents) an immediate re-read came back empty nearly every time.
 */
export const DRAINED_PAUSE_MS = 2;

/**
 * The longest such wait: a busy partition whose records come slowly waits until about
 * {@link DRAINED_TARGET_RECORDS} are expected, but never longer than this. In the TCP load run
 * (about 150 records a second per partition) reads 2 ms apart mostly found one record or none,
 * and every read is a request (a socket write, a server turn) per agent.
 */
export const MAX_DRAINED_PAUSE_MS = 6;

/**
 * While busy, a drained partition is read again once this many records are expected on it (by
 * its recent rate), within {@link DRAINED_PAUSE_MS}..{@link MAX_DRAINED_PAUSE_MS}: a fast
 * partition keeps the short pause, a slow one takes a batch per read instead of single records.
 */
export const DRAINED_TARGET_RECORDS = 2;

/** The shortest pause after an empty read while the consumer is busy (see the module comment). */
export const EMPTY_PARTITION_PAUSE_MS = 4;

/** Partitions that found records within {@link BUSY_WINDOW_MS} from which a consumer is busy. */
export const QUIET_PARTITIONS = 2;

/** How recently a partition must have found records to count towards a busy consumer, ms. */
export const BUSY_WINDOW_MS = 10;

// Quiet mode's hot window is the reply readers' (clock/poll-pacer.ts): one definition, so an agent
// waiting for the next request and a requester waiting for its reply follow the same schedule.

/** While quiet: empty reads after records that still go out at once, within {@link HOT_WINDOW_MS}. */
export const HOT_READS: number = DEFAULT_POLL_PACING.hotReads;

/** While quiet: how long after records empty reads still go out at once, ms. */
export const HOT_WINDOW_MS: number = DEFAULT_POLL_PACING.hotMs;

/** While quiet: the first pause once the hot reads are spent, ms (it doubles from there). */
export const HOT_MIN_PAUSE_MS: number = DEFAULT_POLL_PACING.minMs;

/** The read schedule of one partition, kept on its lane. */
export interface PartitionPace {
  /** The next read is due at this time (performance.now() ms); 0 reads at once. */
  dueAt: number;
  /** The pause after the next empty read, ms. */
  emptyPause: number;
  /** When a read of this partition last found records (performance.now() ms). */
  foundAt: number;
  /** Quiet mode: empty reads left that go out at once, until `hotUntil`. */
  hotLeft: number;
  hotUntil: number;
  /** When the partition was last read (performance.now() ms). */
  readAt: number;
  /** Records per ms the recent reads found, smoothed; 0 before the first. */
  rate: number;
}

/** A fresh schedule: the partition is read at once. */
export function freshPace(): PartitionPace {
  return { dueAt: 0, emptyPause: EMPTY_PARTITION_PAUSE_MS, foundAt: -Infinity, hotLeft: 0, hotUntil: -Infinity, readAt: -Infinity, rate: 0 };
}

/** True when at least {@link QUIET_PARTITIONS} of `lanes` found records within {@link BUSY_WINDOW_MS} of `now`. */
export function isBusy(lanes: Iterable<{ readonly pace: PartitionPace }>, now: number): boolean {
  let found = 0;
  for (const lane of lanes) if (now - lane.pace.foundAt <= BUSY_WINDOW_MS && ++found >= QUIET_PARTITIONS) return true;
  return false;
}

/**
 * Moves the schedule after a read at `now` that found `count` records (`full`: as many as asked
 * for, so more may be waiting), in busy or quiet mode. `maxPauseMs`, the consumer's idle wait,
 * caps every pause.
 */
export function afterRead(pace: PartitionPace, count: number, full: boolean, now: number, maxPauseMs: number, busy: boolean): void {
  const floor = Math.min(busy ? EMPTY_PARTITION_PAUSE_MS : HOT_MIN_PAUSE_MS, maxPauseMs);
  // The records this read found arrived since the last read: half of the smoothed rate is this
  // interval's, so a change of pace shows within a few reads. (A first read says nothing.)
  const interval = now - pace.readAt;
  if (interval > 0 && Number.isFinite(interval)) pace.rate = pace.rate / 2 + count / interval / 2;
  pace.readAt = now;
  if (count > 0) {
    pace.foundAt = now;
    // Busy: the pause a partition settled at is kept in part; quiet: back-off starts over.
    pace.emptyPause = busy ? Math.max(floor, pace.emptyPause / 2) : floor;
    pace.hotLeft = HOT_READS;
    pace.hotUntil = now + HOT_WINDOW_MS;
    // Several records at once mean requests are queueing up: a moment's pause lets the next
    // read take (and the agent answer in one append) a batch, not one record at a time.
    const pause = busy || count > 1;
    pace.dueAt = full || !pause ? 0 : now + Math.min(busy ? drainedPause(pace.rate) : DRAINED_PAUSE_MS, maxPauseMs);
    return;
  }
  if (!busy && pace.hotLeft > 0 && now < pace.hotUntil) {
    pace.hotLeft--;
    pace.dueAt = 0;
    return;
  }
  // Busy, with records seen before: an empty read says they come slower than the last pause, so
  // the next waits at least as long as a drained read's would (about DRAINED_TARGET_RECORDS' worth).
  const expected = busy && pace.rate > 0 ? drainedPause(pace.rate) : 0;
  const pause = Math.max(floor, Math.min(Math.max(pace.emptyPause, expected), maxPauseMs));
  pace.dueAt = now + pause;
  pace.emptyPause = Math.min(maxPauseMs, pause * 2);
}

/** Busy: the wait until {@link DRAINED_TARGET_RECORDS} records are expected at `rate` (per ms), bounded. */
function drainedPause(rate: number): number {
  return Math.min(MAX_DRAINED_PAUSE_MS, Math.max(DRAINED_PAUSE_MS, DRAINED_TARGET_RECORDS / rate));
}

/**
 * Quiet mode: the consumer finished the partition's records (their answers are out), so the next
 * request's record can land any moment. The partition is read at once and stays hot as after a
 * read that found records.
 */
export function answered(pace: PartitionPace, now: number): void {
  pace.dueAt = 0;
  pace.hotLeft = HOT_READS;
  pace.hotUntil = now + HOT_WINDOW_MS;
  pace.emptyPause = Math.min(pace.emptyPause, HOT_MIN_PAUSE_MS);
}
