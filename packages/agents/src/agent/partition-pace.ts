/**
 * When a consumer on a log whose waits poll (Iggy) reads each partition next. There every read
 * is a request of its own (a socket write and a server turn, on a connection that carries one
 * request at a time), and under load most of an agent's reads came back empty: each partition
 * was read again at once after every read that found records, and every round that found nothing
 * re-read all of them. Here each partition keeps its own schedule:
 *
 * - a read that filled its batch is followed at once (more records may be waiting);
 * - a read that found records but drained the partition waits {@link DRAINED_PAUSE_MS}: records
 *   have to be appended before another read can find any;
 * - each empty read in a row doubles the partition's pause, up to the consumer's idle wait (the
 *   agent's `pollInterval`); a read that finds records halves it again, down to
 *   {@link EMPTY_PARTITION_PAUSE_MS}, so a partition whose records come every few milliseconds
 *   settles near that interval instead of starting the back-off over after every record.
 *
 * So a busy partition is read about as often as its records come, a quiet one about once per idle
 * wait, and a record waits at most one pause (at most the idle wait) before it is read.
 */

/**
 * How long a partition whose last read found records but did not fill the batch waits before it
 * is read again. In the TCP load run (32 sessions over 8 partitions, each record read by 4
 * agents) an immediate re-read came back empty nearly every time.
 */
export const DRAINED_PAUSE_MS = 2;

/** The shortest pause after an empty read (see the module comment). */
export const EMPTY_PARTITION_PAUSE_MS = 4;

/** The read schedule of one partition, kept on its lane. */
export interface PartitionPace {
  /** The next read is due at this time (performance.now() ms); 0 reads at once. */
  dueAt: number;
  /** The pause after the next empty read, ms. */
  emptyPause: number;
}

/** A fresh schedule: the partition is read at once. */
export function freshPace(): PartitionPace {
  return { dueAt: 0, emptyPause: EMPTY_PARTITION_PAUSE_MS };
}

/**
 * Moves the schedule after a read at `now` that found `count` records (`full`: as many as asked
 * for, so more may be waiting). `maxPauseMs`, the consumer's idle wait, caps every pause.
 */
export function afterRead(pace: PartitionPace, count: number, full: boolean, now: number, maxPauseMs: number): void {
  const floor = Math.min(EMPTY_PARTITION_PAUSE_MS, maxPauseMs);
  if (count === 0) {
    const pause = Math.max(floor, Math.min(pace.emptyPause, maxPauseMs));
    pace.dueAt = now + pause;
    pace.emptyPause = Math.min(maxPauseMs, pause * 2);
    return;
  }
  pace.emptyPause = Math.max(floor, pace.emptyPause / 2);
  pace.dueAt = full ? 0 : now + Math.min(DRAINED_PAUSE_MS, maxPauseMs);
}
