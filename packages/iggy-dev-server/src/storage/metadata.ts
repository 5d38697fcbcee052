/**
 * The persisted metadata: streams, topics (with their partitions' creation times), consumer
 * groups and every stored consumer offset. Big integers travel as decimal strings so the file
 * is plain JSON; it is written whole, atomically (temporary file, fsync, rename).
 */

/** A consumer group as persisted (members are connections and are never persisted). */
export interface GroupSnapshot {
  /** Group id. */
  readonly id: number;
  /** Group name. */
  readonly name: string;
  /** `[partition, offset]` pairs. */
  readonly offsets: ReadonlyArray<readonly [number, string]>;
}

/** A topic as persisted. */
export interface TopicSnapshot {
  /** Topic id. */
  readonly id: number;
  /** Topic name. */
  readonly name: string;
  /** µs. */
  readonly createdAt: string;
  /** Creation time (µs) of each partition, by id. */
  readonly partitions: readonly string[];
  /** µs; u64::MAX = never. */
  readonly messageExpiry: string;
  /** Bytes; u64::MAX = unlimited. */
  readonly maxTopicSize: string;
  /** Compression code. */
  readonly compression: number;
  /** Replication factor (classic). */
  readonly replicationFactor: number;
  /** The explicit VSR options block, base64. */
  readonly options: string;
  /** Canonical settings given explicitly (absent in older files). */
  readonly explicit?: readonly string[];
  /** Next group id: group ids are never reused within a topic, across restarts too. */
  readonly nextGroupId: number;
  /** Groups. */
  readonly groups: readonly GroupSnapshot[];
  /** `[partition, consumer key, offset]` triples of single consumers. */
  readonly consumerOffsets: ReadonlyArray<readonly [number, string, string]>;
}

/** A stream as persisted. */
export interface StreamSnapshot {
  /** Stream id. */
  readonly id: number;
  /** Stream name. */
  readonly name: string;
  /** µs. */
  readonly createdAt: string;
  /** The id the next topic gets (informational: ids are re-derived from the topics present). */
  readonly nextTopicId: number;
  /** Topics. */
  readonly topics: readonly TopicSnapshot[];
}

/** The whole persisted metadata. */
export interface MetadataSnapshot {
  /** Format version (1). */
  readonly version: 1;
  /** The id the next stream gets (informational: ids are re-derived from the streams present). */
  readonly nextStreamId: number;
  /** Streams. */
  readonly streams: readonly StreamSnapshot[];
}
