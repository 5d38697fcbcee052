/**
 * Where the broker keeps its state: nowhere (memory) or a data folder (disk). The broker calls
 * storage synchronously before it acknowledges anything, so an acknowledged append or metadata
 * change is written (and, with fsync `always`, synced) before the reply leaves.
 */

import type { PartitionWriter } from '../log/partition-log.js';
import type { StoredBatch } from '../log/stored-batch.js';
import type { MetadataSnapshot } from './metadata.js';
import type { UsersSnapshot } from './users.js';

/** A partition as storage hands it back on startup. */
export interface OpenedPartition {
  /** Receives appends (absent for memory storage). */
  readonly writer?: PartitionWriter;
  /** The batches recovered from disk, in offset order. */
  readonly batches: readonly StoredBatch[];
  /** The lowest offset the next append may get (the last segment's base), when known. */
  readonly startOffset?: bigint;
}

/** The storage back end of a broker. */
export interface Storage {
  /** `memory` or `disk`. */
  readonly kind: 'memory' | 'disk';
  /** The last saved metadata, if any. */
  loadMetadata(): MetadataSnapshot | undefined;
  /** Replaces the saved metadata. */
  saveMetadata(snapshot: MetadataSnapshot): void;
  /** The last saved users, permissions and tokens, if any. */
  loadUsers(): UsersSnapshot | undefined;
  /** Replaces the saved users, permissions and tokens. */
  saveUsers(snapshot: UsersSnapshot): void;
  /** Opens (creating when missing) a partition's log and recovers its batches. */
  openPartition(streamId: number, topicId: number, partitionId: number): OpenedPartition;
  /** Deletes a partition's data. */
  dropPartition(streamId: number, topicId: number, partitionId: number): void;
  /** Deletes a topic's data. */
  dropTopic(streamId: number, topicId: number): void;
  /** Deletes a stream's data. */
  dropStream(streamId: number): void;
  /** Flushes and releases files. */
  close(): void;
}

/** Storage that keeps nothing: the state lives only in the broker's memory. */
export class MemoryStorage implements Storage {
  readonly kind: 'memory' = 'memory';
  loadMetadata(): MetadataSnapshot | undefined {
    return undefined;
  }
  saveMetadata(): void {}
  loadUsers(): UsersSnapshot | undefined {
    return undefined;
  }
  saveUsers(): void {}
  openPartition(): OpenedPartition {
    return { batches: [] };
  }
  dropPartition(): void {}
  dropTopic(): void {}
  dropStream(): void {}
  close(): void {}
}
