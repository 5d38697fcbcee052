/**
 * How a topic's size limit (`maxTopicBytes`, Iggy's `max_topic_size`) is measured and shared out.
 * Every log counts the same bytes, so one limit keeps about the same records on `MemoryLog`, on
 * the dev server and on Iggy.
 */

/**
 * What each retained record adds to its topic's size besides its payload and header block: the
 * 48-byte per-message frame header of the batch record Iggy 0.9 stores on disk (the dev server
 * stores the same records, so it counts the same bytes).
 */
export const RETAINED_RECORD_OVERHEAD_BYTES = 48;

/** The bytes one retained record counts towards its topic's `maxTopicBytes`. */
export function retainedRecordBytes(payloadBytes: number, headerBlockBytes: number): number {
  return payloadBytes + headerBlockBytes + RETAINED_RECORD_OVERHEAD_BYTES;
}

/**
 * One partition's share of a topic's size limit: `maxTopicBytes / partitions`, rounded down, as
 * Iggy's segment cleaner splits it (no single owner keeps a topic-wide total, so each partition
 * trims its own log). Saturates at `Number.MAX_SAFE_INTEGER`, far beyond what memory holds.
 */
export function partitionShareBytes(maxTopicBytes: bigint, partitions: number): number {
  const share = maxTopicBytes / BigInt(partitions);
  return share > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(share);
}
