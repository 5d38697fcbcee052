/**
 * One partition: its stamped batches in offset order, the next offset, and the broker clock's
 * last value (timestamps are strictly increasing per partition). Expired batches are dropped
 * from the head; offsets never restart.
 */

import { RecordArena } from './record-arena.js';
import type { StoredBatch } from './stored-batch.js';
import { frameStarts, messageBytes, stampBatch } from './stored-batch.js';

/** Where storage receives appended batches. */
export interface PartitionWriter {
  /** Persists one stamped batch before the append is acknowledged (may throw). */
  append(batch: StoredBatch): void;
  /** Drops everything (purge). */
  purge(): void;
  /** Every offset below `offset` expired: whole segments below it may be deleted. */
  expireBefore(offset: bigint): void;
  /**
   * Where the `count` oldest sealed segments end (the first offset after them), or undefined
   * when none is sealed. The active segment never counts.
   */
  sealedSegmentsEnd?(count: number): bigint | undefined;
  /** Segments on storage, the active one included. */
  readonly segmentsCount?: number;
  /**
   * Record bytes kept in memory per partition; older batches that storage can `load` back drop
   * theirs. Undefined = keep everything.
   */
  readonly cacheBytes?: number | undefined;
}

/** A run of messages of one stored batch: indices `from..to-1`. */
export interface BatchSlice {
  /** The batch. */
  readonly batch: StoredBatch;
  /** First message index within the batch. */
  readonly from: number;
  /** One past the last message index. */
  readonly to: number;
}

/** The state of one partition. */
export class PartitionLog {
  /** The 0-based partition id. */
  readonly id: number;
  /** Creation time, µs. */
  readonly createdAt: bigint;
  #batches: StoredBatch[] = [];
  #head = 0;
  #nextOffset = 0n;
  #lastTimestamp = 0n;
  #sizeBytes = 0n;
  #messages = 0n;
  #writer: PartitionWriter | undefined;
  /** Bytes of records held in memory from `#cold` on. */
  #hot = 0;
  /** Index of the oldest batch that may still hold its bytes. */
  #cold = 0;
  /** Where appended records are kept. */
  readonly #arena = new RecordArena();

  constructor(id: number, createdAt: bigint, writer?: PartitionWriter, recovered: readonly StoredBatch[] = [], startOffset = 0n) {
    this.id = id;
    this.createdAt = createdAt;
    this.#writer = writer;
    for (const b of recovered) this.#push(b);
    // Offsets never restart, even when every stored batch expired and its segment is gone.
    if (startOffset > this.#nextOffset) this.#nextOffset = startOffset;
    this.#trim();
  }

  /** Drops the bytes of the oldest loadable batches past the cache budget (the newest stays). */
  #trim(): void {
    const budget = this.#writer?.cacheBytes;
    if (budget === undefined) return;
    if (this.#cold < this.#head) this.#cold = this.#head;
    while (this.#hot > budget && this.#cold < this.#batches.length - 1) {
      const b = this.#batches[this.#cold] as StoredBatch;
      if (b.bytes !== undefined && b.load !== undefined) {
        // Sizing a partial read of a cold batch must not read it back from storage.
        frameStarts(b);
        b.bytes = undefined;
        this.#hot -= b.length;
      }
      this.#cold++;
    }
  }

  #push(b: StoredBatch): void {
    this.#batches.push(b);
    if (b.bytes !== undefined) this.#hot += b.length;
    this.#nextOffset = b.baseOffset + BigInt(b.count);
    if (b.timestamp > this.#lastTimestamp) this.#lastTimestamp = b.timestamp;
    this.#sizeBytes += BigInt(messageBytes(b, 0, b.count));
    this.#messages += BigInt(b.count);
  }

  /** The offset the next message gets. */
  get nextOffset(): bigint {
    return this.#nextOffset;
  }

  /** The highest offset, 0 when empty (Iggy's `current_offset`). */
  get currentOffset(): bigint {
    return this.#nextOffset === 0n ? 0n : this.#nextOffset - 1n;
  }

  /** The oldest retained offset (= next offset when nothing is retained). */
  get firstOffset(): bigint {
    const b = this.#batches[this.#head];
    return b === undefined ? this.#nextOffset : b.baseOffset;
  }

  /** Bytes of retained messages. */
  get sizeBytes(): bigint {
    return this.#sizeBytes;
  }

  /** Retained messages. */
  get messagesCount(): bigint {
    return this.#messages;
  }

  /** True once a message was ever appended. */
  get everWritten(): boolean {
    return this.#nextOffset > 0n;
  }

  /**
   * Stamps and appends a producer batch (the caller hands over `bytes`, which may be kept as
   * they are or copied into the partition's record slabs); returns the stored batch. Storage
   * runs before the state changes, so a failed write leaves no trace (a copy's slab space is
   * not reused, a bounded loss for a rare event).
   */
  append(bytes: Uint8Array, count: number, now: bigint): StoredBatch {
    const timestamp = now > this.#lastTimestamp ? now : this.#lastTimestamp + 1n;
    const batch = stampBatch(this.#arena.keep(bytes), count, this.id, this.#nextOffset, timestamp);
    this.#writer?.append(batch);
    this.#lastTimestamp = timestamp;
    this.#push(batch);
    this.#trim();
    return batch;
  }

  /** Drops batches whose timestamp is older than `cutoff` (µs); they form a prefix. */
  expire(cutoff: bigint): void {
    this.#dropHead((b) => b.timestamp < cutoff);
  }

  /** Segments holding this partition (1 in memory, where the log is one open segment). */
  get segmentsCount(): number {
    return this.#writer?.segmentsCount ?? 1;
  }

  /**
   * Deletes the `count` oldest sealed segments and their messages (DeleteSegments); the active
   * segment is kept, so in memory nothing is deleted. Offsets never restart. Returns the number
   * of messages removed.
   */
  deleteSegments(count: number): bigint {
    if (count <= 0) return 0n;
    const end = this.#writer?.sealedSegmentsEnd?.(count);
    if (end === undefined) return 0n;
    const before = this.#messages;
    this.#dropHead((b) => b.baseOffset < end);
    this.#writer?.expireBefore(end);
    return before - this.#messages;
  }

  /**
   * Size retention (`max_topic_size`): while the partition's message bytes pass `maxBytes`, its
   * oldest messages go. On disk that is the oldest sealed segment, its files deleted, as Iggy's
   * segment cleaner does (never the active one); in memory, where the log is one open segment,
   * the oldest batch, never the newest. Offsets never restart.
   */
  trimToSize(maxBytes: bigint): void {
    if (this.#sizeBytes <= maxBytes) return;
    const writer = this.#writer;
    if (writer === undefined) {
      const newest = this.#batches[this.#batches.length - 1];
      this.#dropHead((b) => b !== newest && this.#sizeBytes > maxBytes);
      return;
    }
    while (this.#sizeBytes > maxBytes) {
      const end = writer.sealedSegmentsEnd?.(1);
      if (end === undefined) return;
      this.#dropHead((b) => b.baseOffset < end);
      writer.expireBefore(end);
      // A segment storage could not let go of would be chosen again forever.
      if (writer.sealedSegmentsEnd?.(1) === end) return;
    }
  }

  /** Drops the leading batches `gone` selects (a prefix) and lets storage delete their segments. */
  #dropHead(gone: (b: StoredBatch) => boolean): void {
    const head = this.#head;
    while (this.#head < this.#batches.length) {
      const b = this.#batches[this.#head] as StoredBatch;
      if (!gone(b)) break;
      this.#sizeBytes -= BigInt(messageBytes(b, 0, b.count));
      this.#messages -= BigInt(b.count);
      if (b.bytes !== undefined) this.#hot -= b.length;
      b.bytes = undefined;
      this.#head++;
    }
    if (this.#head !== head) this.#writer?.expireBefore(this.firstOffset);
    if (this.#head > 64 && this.#head * 2 > this.#batches.length) {
      this.#batches = this.#batches.slice(this.#head);
      this.#cold = Math.max(0, this.#cold - this.#head);
      this.#head = 0;
    }
  }

  /** Deletes every message; offsets restart at 0, as Iggy's purge does. */
  purge(): void {
    this.#writer?.purge();
    this.#arena.reset();
    this.#batches = [];
    this.#head = 0;
    this.#cold = 0;
    this.#hot = 0;
    this.#nextOffset = 0n;
    this.#sizeBytes = 0n;
    this.#messages = 0n;
  }

  #indexOf(offset: bigint): number {
    let lo = this.#head;
    let hi = this.#batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.#batches[mid] as StoredBatch).baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The first retained offset whose timestamp is at or after `ts`, or undefined. */
  offsetAtTimestamp(ts: bigint): bigint | undefined {
    let lo = this.#head;
    let hi = this.#batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#batches[mid] as StoredBatch).timestamp < ts) lo = mid + 1;
      else hi = mid;
    }
    return this.#batches[lo]?.baseOffset;
  }

  /**
   * Up to `count` messages from `offset` (clamped to the oldest retained one), stopping once
   * `maxBytes` of message data are collected (at least one message is always returned).
   */
  read(offset: bigint, count: number, maxBytes: number): BatchSlice[] {
    const out: BatchSlice[] = [];
    if (count <= 0 || this.#head >= this.#batches.length) return out;
    let at = offset < this.firstOffset ? this.firstOffset : offset;
    if (at >= this.#nextOffset) return out;
    let left = count;
    let bytes = 0;
    for (let i = this.#indexOf(at); i < this.#batches.length && left > 0; i++) {
      const b = this.#batches[i] as StoredBatch;
      const from = Number(at - b.baseOffset);
      const to = Math.min(b.count, from + left);
      const size = messageBytes(b, from, to);
      if (out.length > 0 && bytes + size > maxBytes) break;
      out.push({ batch: b, from, to });
      bytes += size;
      left -= to - from;
      at = b.baseOffset + BigInt(to);
    }
    return out;
  }
}
