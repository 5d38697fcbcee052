/**
 * What recovery dropped from a partition when the data folder was opened: the torn tail of a
 * segment (a record cut by a crash, or bytes that are not a valid record) and every later
 * segment of that partition, which no acknowledged append can have reached past the tear.
 */

/** One partition whose segments recovery cut. */
export interface RecoveryNotice {
  /** The stream id. */
  readonly streamId: number;
  /** The topic id. */
  readonly topicId: number;
  /** The partition id. */
  readonly partitionId: number;
  /** The segment file cut (its name, such as `00000000000000000000.log`). */
  readonly segment: string;
  /** Bytes of whole records kept in that segment. */
  readonly keptBytes: number;
  /** Bytes cut from its end. */
  readonly droppedBytes: number;
  /** Later segment files of the partition removed, by name. */
  readonly removedSegments: readonly string[];
  /** Bytes of those later segments. */
  readonly removedBytes: number;
  /** The offset the next append gets (every offset below it that survived is kept). */
  readonly nextOffset: bigint;
}

/** One line for an operator: what was dropped, and where. */
export function describeRecovery(n: RecoveryNotice): string {
  const later = n.removedSegments.length === 0 ? '' : `, and removed ${n.removedSegments.length} later segment(s) (${n.removedBytes} bytes: ${n.removedSegments.join(', ')})`;
  return `recovered stream ${n.streamId} topic ${n.topicId} partition ${n.partitionId}: cut ${n.droppedBytes} bytes of a torn or invalid record from the end of ${n.segment} (kept ${n.keptBytes} bytes of whole records)${later}; the next offset is ${n.nextOffset}`;
}
