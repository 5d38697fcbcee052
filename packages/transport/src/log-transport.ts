/**
 * The `LogTransport` interface: the one seam between AGDX agents, sessions and bridges and the
 * partitioned log underneath (the embedded {@link MemoryLog} or an Apache Iggy server). Every
 * method here maps onto Iggy commands, so a network client can implement it faithfully.
 */

import type { RecordHeaders } from './headers.js';

/** Options every call accepts. */
export interface CallOptions {
  /** Aborting rejects the call with a `CancelledError` (kind `cancelled`). */
  readonly signal?: AbortSignal | undefined;
}

/** A topic inside a stream, both by name (Iggy name rules: 1..255 UTF-8 bytes). */
export interface TopicAddress {
  /** The stream name. */
  readonly stream: string;
  /** The topic name. */
  readonly topic: string;
}

/** One partition of a topic (partition ids are 0-based, as in Iggy). */
export interface PartitionAddress extends TopicAddress {
  /** The 0-based partition id. */
  readonly partition: number;
}

/** What {@link LogTransport.ensureTopic} creates, or checks an existing topic against. */
export interface TopicSettings {
  /** Number of partitions, 1..1000. An existing topic must have exactly this many. */
  readonly partitions: number;
  /**
   * Records older than this many microseconds (by broker timestamp) are no longer returned.
   * `undefined` means never expire. An existing topic must have exactly this expiry
   * (`undefined` matches only a topic that never expires).
   */
  readonly messageExpiryMicros?: bigint | undefined;
  /**
   * The most bytes the topic retains (Iggy's `max_topic_size`), counted as
   * `retainedRecordBytes` (payload, header block and 48 bytes) per record; each partition keeps an equal share
   * (`maxTopicBytes / partitions`). Past its share a partition drops its oldest records (a
   * server, its oldest sealed segments), never its newest one. `undefined` means unlimited;
   * otherwise a bigint 1..2^64-2. An existing topic must have exactly this limit (`undefined`
   * matches only an unlimited topic).
   */
  readonly maxTopicBytes?: bigint | undefined;
}

/** The state of one partition. */
export interface PartitionDescription {
  /** The 0-based partition id. */
  readonly partition: number;
  /** The offset the next appended record will get (0 for a partition never written). */
  readonly nextOffset: bigint;
}

/** The shape and fill level of a topic. */
export interface TopicDescription extends TopicAddress {
  /** Number of partitions. */
  readonly partitionCount: number;
  /** Message expiry in microseconds; `undefined` = never expire. */
  readonly messageExpiryMicros: bigint | undefined;
  /**
   * The topic's size limit in bytes (see {@link TopicSettings.maxTopicBytes}); `undefined` =
   * unlimited. Optional so descriptions built by older code still type-check; every transport of
   * this package reports it.
   */
  readonly maxTopicBytes?: bigint | undefined;
  /** One entry per partition, in partition-id order. */
  readonly partitions: readonly PartitionDescription[];
  /**
   * When the topic was created, in microseconds: its generation. A topic deleted and recreated
   * under the same name reports a different value, which is how a reader holding offsets into the
   * old topic tells them apart. `undefined` when the log cannot say.
   */
  readonly createdAtMicros?: bigint | undefined;
}

/** A record to append. */
export interface AppendRecord {
  /** Typed user headers (keys 1..255 UTF-8 bytes, block at most 100,000 bytes encoded). */
  readonly headers?: RecordHeaders | undefined;
  /**
   * The payload, 1..64,000,000 bytes. The log keeps its own copy (unless the request says
   * `payloadsImmutable`). It may be a view into a buffer other records share: a transport never
   * transfers or detaches a payload's buffer.
   */
  readonly payload: Uint8Array;
}

/**
 * Where an appended batch goes; the whole batch lands in one partition.
 * - `{ partition }`: that partition id.
 * - `{ key }`: `xxh32(utf8(key), seed 0) % partitionCount` (the Iggy server's mapping), key
 *   1..255 bytes.
 * - `{ balanced: true }` (the default): the topic's round-robin counter, shared by every writer.
 */
export type Routing =
  | { readonly partition: number }
  | { readonly key: string | Uint8Array }
  | { readonly balanced: true };

/** An append request. */
export interface AppendRequest extends TopicAddress, CallOptions {
  /**
   * The batch, 1 or more records, at most `MAX_BATCH_BYTES` counting each record's payload,
   * encoded header block and `RECORD_FRAMING_BYTES` (a larger batch is `InvalidArgumentError`,
   * refused before anything is copied or sent).
   */
  readonly records: readonly AppendRecord[];
  /** Partition choice; balanced when omitted. */
  readonly routing?: Routing | undefined;
  /**
   * The caller's promise that it will never change the batch's payload arrays after this call
   * (it may still read them, and may retry with them after a failure). A transport may then keep
   * the arrays rather than copy them. Leave it unset when a payload is a reused buffer.
   */
  readonly payloadsImmutable?: boolean | undefined;
}

/**
 * Where an appended batch landed. The records got contiguous offsets: record `i` of the batch
 * has offset `baseOffset + BigInt(i)`, all in `partition`.
 */
export interface AppendResult {
  /** The partition every record of the batch went to. */
  readonly partition: number;
  /** The offset of the batch's first record. */
  readonly baseOffset: bigint;
  /** Number of records appended. */
  readonly count: number;
}

/** A record read back from the log. Treat it, its headers and its payload as read-only. */
export interface LogRecord {
  /** The partition it lives in. */
  readonly partition: number;
  /** Its offset in the partition: contiguous from 0, in append order. */
  readonly offset: bigint;
  /**
   * When the log stored it, microseconds since the Unix epoch. Assigned by the log, never by the
   * producer; non-decreasing along a partition.
   */
  readonly timestampMicros: bigint;
  /** The headers exactly as written (an empty map when none were given). */
  readonly headers: RecordHeaders;
  /** The payload exactly as written. */
  readonly payload: Uint8Array;
}

/** Read a partition starting at an offset. */
export interface ReadRequest extends PartitionAddress, CallOptions {
  /**
   * The first offset wanted. Records before the oldest retained one are skipped (expired); an
   * offset at or past the end gives an empty result.
   */
  readonly offset: bigint;
  /** At most this many records, 0..1,000,000 (default 1,000). */
  readonly maxCount?: number | undefined;
}

/** Read a partition starting at a broker timestamp. */
export interface ReadFromTimestampRequest extends PartitionAddress, CallOptions {
  /** Returns records whose broker timestamp is at or after this (microseconds since epoch). */
  readonly timestampMicros: bigint;
  /** At most this many records, 0..1,000,000 (default 1,000). */
  readonly maxCount?: number | undefined;
}

/** Wait until a partition holds a record at or past an offset. */
export interface WaitRequest extends PartitionAddress, CallOptions {
  /** Resolve once a record with this offset (or a later one) exists. */
  readonly offset: bigint;
  /** Give up after this many milliseconds (0..2,147,483,647); waiting is always bounded. */
  readonly timeoutMs: number;
}

/**
 * Whose offset: a named single consumer, or a consumer group (offsets are kept per group and
 * partition, shared by its members).
 */
export type ConsumerRef =
  | { readonly kind: 'consumer'; readonly name: string }
  | { readonly kind: 'group'; readonly name: string };

/** Address a stored consumer offset. */
export interface OffsetRequest extends PartitionAddress, CallOptions {
  /** Whose offset. */
  readonly consumer: ConsumerRef;
}

/** Store a consumer offset. */
export interface StoreOffsetRequest extends OffsetRequest {
  /**
   * The last consumed offset (Iggy's meaning); it must be below the partition's `nextOffset`,
   * else `InvalidArgumentError`. Reading resumes at `offset + 1n`.
   */
  readonly offset: bigint;
}

/** Join a consumer group. */
export interface JoinGroupRequest extends TopicAddress, CallOptions {
  /** The group name (1..255 UTF-8 bytes). The group is created when missing. */
  readonly group: string;
}

/** Poll as a group member. */
export interface GroupPollOptions extends CallOptions {
  /** At most this many records, 0..1,000,000 (default 1,000). */
  readonly maxCount?: number | undefined;
  /** Store the offset of the last returned record as the group's offset (default false). */
  readonly autoCommit?: boolean | undefined;
}

/** What a group poll returned. */
export interface GroupPollResult {
  /** The partition the records came from, `undefined` when nothing was returned. */
  readonly partition: number | undefined;
  /** Records after the group's stored offset on that partition, in offset order. */
  readonly records: readonly LogRecord[];
}

/**
 * One member of a consumer group, holding a share of the topic's partitions. Each
 * {@link LogTransport.joinGroup} call creates a distinct member (over Iggy: its own connection).
 */
export interface GroupMember {
  /** The group name. */
  readonly group: string;
  /** An opaque id, unique among the group's members. */
  readonly memberId: string;
  /**
   * The partition ids this member currently owns, ascending. The log reassigns partitions
   * whenever members join or leave; every partition belongs to exactly one member once the
   * rebalance settles.
   */
  assignment(options?: CallOptions): Promise<readonly number[]>;
  /**
   * Records from one owned partition, starting after the group's stored offset there; owned
   * partitions are visited round-robin and a partition with nothing new is passed over. The
   * result is empty only when no owned partition has anything new.
   */
  poll(options?: GroupPollOptions): Promise<GroupPollResult>;
  /**
   * Stores the group's offset (the last consumed offset) for a partition this member owns;
   * `ConflictError` when it does not own it.
   */
  commit(partition: number, offset: bigint, options?: CallOptions): Promise<void>;
  /**
   * Resolves `true` once an owned partition has records after the group's stored offset, or the
   * assignment changed; `false` after `timeoutMs`. No busy polling.
   */
  waitFor(timeoutMs: number, options?: CallOptions): Promise<boolean>;
  /**
   * Leaves the group (idempotent); the remaining members share its partitions. It leaves even
   * when `options.signal` has already fired: leaving is the clean-up after aborted work.
   */
  leave(options?: CallOptions): Promise<void>;
}

/**
 * A connection to a partitioned, append-only log of streams and topics.
 *
 * Errors are typed (`TransportError` subclasses, each with a stable `kind`): `invalid` for a
 * bad argument, `not-found` for an unknown stream, topic, partition or group, `conflict` for a
 * request that contradicts existing state, `cancelled` when the signal fires, `closed` after
 * {@link LogTransport.close}, `timeout` and `transport` for network failures. A call checks in
 * that order: `closed`, `cancelled`, then every argument (`invalid`), and only then its targets
 * (`not-found`, `conflict`), so a bad argument is `invalid` whether or not its topic exists.
 */
export interface LogTransport {
  /**
   * `true` when {@link LogTransport.waitFor} is a polling loop because the log has no blocking
   * read (Apache Iggy): a reader that needs low latency then paces its own reads (at once while
   * records flow or a reply is expected, backing off while idle) instead of sleeping in
   * `waitFor`'s fixed back-off. Absent or `false`: the writer wakes waits (MemoryLog).
   */
  readonly waitsByPolling?: boolean | undefined;
  /** Creates the stream when missing; idempotent. */
  ensureStream(stream: string, options?: CallOptions): Promise<void>;
  /**
   * Creates the topic when missing; idempotent. An existing topic must match `settings`
   * (`ConflictError` otherwise). The stream must exist.
   */
  ensureTopic(address: TopicAddress, settings: TopicSettings, options?: CallOptions): Promise<TopicDescription>;
  /** The topic's partition count, per-partition next offset, expiry and size limit. */
  describeTopic(address: TopicAddress, options?: CallOptions): Promise<TopicDescription>;
  /** Appends a batch to one partition chosen by `routing`; see {@link AppendResult}. */
  append(request: AppendRequest): Promise<AppendResult>;
  /** Up to `maxCount` records of one partition from an offset, in offset order. */
  read(request: ReadRequest): Promise<readonly LogRecord[]>;
  /** Up to `maxCount` records of one partition from the first one stored at or after a timestamp. */
  readFromTimestamp(request: ReadFromTimestampRequest): Promise<readonly LogRecord[]>;
  /**
   * Waits, without busy polling, until the partition holds a record at `offset` or later:
   * `true` when it does (at once if it already does), `false` when `timeoutMs` passes first.
   */
  waitFor(request: WaitRequest): Promise<boolean>;
  /**
   * Stores a consumer offset. For a group, a member joined through this transport must own the
   * partition (`ConflictError` otherwise), as Iggy requires.
   */
  storeOffset(request: StoreOffsetRequest): Promise<void>;
  /** The stored offset, `undefined` when none is stored. Group offsets need no membership. */
  getOffset(request: OffsetRequest): Promise<bigint | undefined>;
  /**
   * Deletes a stored offset: `true` when one was stored. For a group, the same ownership rule
   * as {@link LogTransport.storeOffset} applies.
   */
  deleteOffset(request: OffsetRequest): Promise<boolean>;
  /** Joins (creating when missing) a consumer group of a topic as a new member. */
  joinGroup(request: JoinGroupRequest): Promise<GroupMember>;
  /**
   * Closes the connection: later calls reject with `ClosedError`, pending waits reject with
   * `ClosedError`, and its group members leave. Idempotent. Stored data stays in the log.
   */
  close(): Promise<void>;
}
