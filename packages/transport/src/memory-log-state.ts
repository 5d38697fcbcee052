/**
 * The shared state of an embedded log: streams, topics, partitions, consumer offsets and groups.
 * Every {@link MemoryLog} connection over the same state sees the same data, as clients of one
 * server would. All mutation happens synchronously inside one call, so interleaved async calls
 * from many agents never observe a half-applied change.
 */

import { ByteSlab } from './byte-slab.js';
import type { LogClock } from './clock.js';
import { headerBlockBytes } from './headers.js';
import type { LogRecord } from './log-transport.js';
import { retainedRecordBytes } from './retention.js';
import type { Waiter } from './waiter.js';

/** One partition: its records plus where the retained ones start. */
export interface PartitionState {
  /** The 0-based partition id. */
  readonly id: number;
  /** Stored records; `records[i]` has offset `base + i`. */
  records: LogRecord[];
  /** Offset of `records[0]` (grows when expired records are compacted away). */
  base: number;
  /** Index in `records` of the first record not yet expired. */
  start: number;
  /** The offset the next record gets. */
  next: number;
  /** The last broker timestamp handed out, to keep timestamps non-decreasing. */
  lastTimestamp: bigint;
  /**
   * Retained bytes (`retainedRecordBytes` of each record from `start` on). Kept only for a topic
   * with a size limit (0 otherwise), so unlimited topics pay nothing for it.
   */
  bytes: number;
  /** Readers waiting for records on this partition. */
  readonly waiters: Set<Waiter>;
}

/** A member of a consumer group. */
export interface MemberState {
  /** Monotonic within the group: the join order. */
  readonly id: number;
  /** Owned partition ids, ascending. */
  partitions: number[];
  /** Round-robin position for polls. */
  cursor: number;
  /** Waiters to wake when the assignment changes. */
  readonly waiters: Set<Waiter>;
}

/** A consumer group of a topic. */
export interface GroupState {
  /** The group name. */
  readonly name: string;
  /** Members in join order. */
  members: MemberState[];
  /** The next member id. */
  nextMemberId: number;
  /** Stored offsets per partition, shared by the members. */
  readonly offsets: Map<number, bigint>;
}

/** A topic of a stream. */
export interface TopicState {
  /** The stream name. */
  readonly stream: string;
  /** The topic name. */
  readonly name: string;
  /** Partitions by id. */
  readonly partitions: readonly PartitionState[];
  /** Expiry in microseconds, `undefined` = never. */
  readonly expiry: bigint | undefined;
  /** The size limit in bytes (`maxTopicBytes`), `undefined` = unlimited. */
  readonly maxBytes: bigint | undefined;
  /** Each partition's share of {@link TopicState.maxBytes} (unused when that is `undefined`). */
  readonly shareBytes: number;
  /** The balanced-routing counter. */
  balancedCursor: number;
  /** Single-consumer offsets: consumer name to partition to offset. */
  readonly consumerOffsets: Map<string, Map<number, bigint>>;
  /** Consumer groups by name. */
  readonly groups: Map<string, GroupState>;
  /** Creation time in microseconds, unique within the log (the topic's generation). */
  readonly createdAtMicros: bigint;
  /**
   * Where the copies of this topic's payloads go: a small batch is carved from a 64 KiB slab, a
   * batch over 4 KiB gets its own allocation. One per topic, not per log: a slab lives as long as
   * any record in it, so a slab shared with a topic that never expires kept an expiring topic's
   * bytes (or a deleted topic's) alive for good. A topic's records expire at one rate and are
   * deleted together, so its slabs go with them. Empty until the topic's first copied batch.
   */
  readonly payloads: ByteSlab;
}

/** The whole log. */
export interface LogState {
  /** Streams: stream name to topics by name. */
  readonly streams: Map<string, Map<string, TopicState>>;
  /** Where broker timestamps come from. */
  readonly clock: LogClock;
  /** The newest topic creation time handed out, so two creations never share a generation. */
  lastCreatedMicros: bigint;
}

/** A fresh log state. */
export function newLogState(clock: LogClock): LogState {
  return { streams: new Map(), clock, lastCreatedMicros: 0n };
}

/** A topic's payload slab (see {@link TopicState.payloads}). */
export function newPayloadSlab(): ByteSlab {
  return new ByteSlab(64 * 1024, 4 * 1024);
}

/** Creates a partition with no records. */
export function newPartition(id: number): PartitionState {
  return { id, records: [], base: 0, start: 0, next: 0, lastTimestamp: 0n, bytes: 0, waiters: new Set() };
}

/** Compaction threshold: the array is cut once this many expired slots pile up at its front. */
const COMPACT_AFTER = 1024;

/**
 * What an expired record's slot holds until the array is compacted. Never read (reads start at
 * `start`); it only lets the record, its payload and its headers go at once. Before, the slots kept
 * them until a thousand had expired, so a topic of large records never released any: up to 1,023
 * payloads of up to 64 MB each, however short the expiry.
 */
const EXPIRED: LogRecord = Object.freeze({
  partition: -1,
  offset: -1n,
  timestampMicros: -1n,
  headers: new Map(),
  payload: new Uint8Array(0),
});

/**
 * Moves the partition's start past records older than the topic's expiry, releasing each one, and
 * occasionally cuts the expired slots off the array. Timestamps are non-decreasing, so this is
 * amortised O(1).
 */
export function dropExpired(topic: TopicState, partition: PartitionState, now: bigint): void {
  const expiry = topic.expiry;
  if (expiry === undefined) return;
  const records = partition.records;
  const counted = topic.maxBytes !== undefined;
  let start = partition.start;
  let bytes = partition.bytes;
  const cutoff = now - expiry;
  while (start < records.length && (records[start] as LogRecord).timestampMicros <= cutoff) {
    if (counted) bytes -= recordBytes(records[start] as LogRecord);
    records[start++] = EXPIRED;
  }
  partition.bytes = bytes;
  advanceStart(partition, start);
}

/**
 * Drops the partition's oldest records while its retained bytes pass its share of the topic's
 * size limit, always keeping the newest record (as Iggy never deletes the active segment).
 * Called after each append; every record is dropped at most once, so this is amortised O(1).
 */
export function dropOversized(topic: TopicState, partition: PartitionState): void {
  const share = topic.shareBytes;
  if (topic.maxBytes === undefined || partition.bytes <= share) return;
  const records = partition.records;
  const last = records.length - 1;
  let start = partition.start;
  let bytes = partition.bytes;
  while (bytes > share && start < last) {
    bytes -= recordBytes(records[start] as LogRecord);
    records[start++] = EXPIRED;
  }
  partition.bytes = bytes;
  advanceStart(partition, start);
}

/** What a stored record counts towards its topic's size limit. */
function recordBytes(record: LogRecord): number {
  const headers = record.headers;
  return retainedRecordBytes(record.payload.length, headers.size === 0 ? 0 : headerBlockBytes(headers));
}

/** Sets the partition's new start and, once enough dropped slots pile up, cuts them off. */
function advanceStart(partition: PartitionState, start: number): void {
  if (start >= COMPACT_AFTER && start * 2 >= partition.records.length) {
    partition.records = partition.records.slice(start);
    partition.base += start;
    start = 0;
  }
  partition.start = start;
}

/** Full rebalance: members in join order, partition `i` goes to member `i mod M`. */
export function rebalance(topic: TopicState, group: GroupState): void {
  const members = group.members;
  for (const member of members) {
    member.partitions = [];
    member.cursor = 0;
  }
  if (members.length > 0) {
    for (let i = 0; i < topic.partitions.length; i++) (members[i % members.length] as MemberState).partitions.push(i);
  }
  for (const member of members) for (const waiter of member.waiters) waiter.settle(true);
}
