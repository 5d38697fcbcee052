/**
 * The segment files of one partition on disk: appends (with the segment roll and the fsync
 * policy), cold reads, deletion of sealed segments, and the append descriptors the storage may
 * close to keep the process's descriptors bounded.
 */

import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { IggyError } from '@agdx/iggy-protocol';
import type { PartitionWriter } from '../log/partition-log.js';
import type { StoredBatch } from '../log/stored-batch.js';
import { bytesOf } from '../log/stored-batch.js';
import { RECORD_HEADER_SIZE, recordHeader } from './record-file.js';

/** When appended data is synced to the disk. */
export type FsyncPolicy = 'always' | 'interval' | 'never';

/**
 * Partitions whose segment files stay open for appending at once (two descriptors each); the
 * least recently appended closes its files past this, and opens them again at its next append.
 * Large enough for balanced sends over a topic of 1000 partitions (the per-topic maximum) to
 * never reopen a file: reopening costs about 15 times the append itself.
 */
export const MAX_OPEN_PARTITIONS = 1024;

/** What a segment writer needs of its storage. */
export interface SegmentHost {
  /** The fsync policy. */
  readonly fsync: FsyncPolicy;
  /** A new segment starts once the active one reaches this many bytes. */
  readonly segmentBytes: number;
  /** Record bytes each partition keeps in memory. */
  readonly cacheBytesPerPartition: number;
  /** The writer opened its append descriptors or appended: it is the most recent. */
  appending(w: SegmentWriter): void;
  /** The writer closed its append descriptors. */
  released(w: SegmentWriter): void;
}

/** A segment's file name stem: its base offset in 20 digits. */
export function segmentName(base: bigint): string {
  return base.toString().padStart(20, '0');
}

/** Writes all of `bytes` (a write may take fewer). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/**
 * Appends to one partition's segments. Its two append descriptors (log and index) are opened at
 * the first append, not when the partition is made, and the storage closes those of the least
 * recently appended partitions past {@link MAX_OPEN_PARTITIONS}; a cold read opens its segment
 * for that read only. So the descriptors a server holds do not grow with the partitions and
 * segments a client makes.
 */
export class SegmentWriter implements PartitionWriter {
  readonly #dir: string;
  readonly #storage: SegmentHost;
  #log = -1;
  #index = -1;
  #base = 0n;
  #size = 0;
  #indexSize = 0;
  dirty = false;

  /** Bases of the sealed segments, ascending (the active one is `#base`). */
  readonly #sealed: bigint[];

  get cacheBytes(): number {
    return this.#storage.cacheBytesPerPartition;
  }

  /** Reads `length` bytes at `position` of segment `base`. */
  read(base: bigint, position: number, length: number): Uint8Array {
    try {
      const fd = openSync(join(this.#dir, `${segmentName(base)}.log`), 'r');
      try {
        const out = new Uint8Array(length);
        let done = 0;
        while (done < length) {
          const n = readSync(fd, out, done, length - done, position + done);
          if (n === 0) throw new Error('unexpected end of segment');
          done += n;
        }
        return out;
      } finally {
        closeSync(fd);
      }
    } catch (cause) {
      throw new IggyError(1, `cannot read segment ${segmentName(base)} of ${this.#dir}`, { cause });
    }
  }

  /** A loader for the record at `position` (its header included) of segment `base`. */
  loader(base: bigint, position: number, length: number): () => Uint8Array {
    return () => this.read(base, position + RECORD_HEADER_SIZE, length);
  }

  constructor(dir: string, storage: SegmentHost, base: bigint, size: number, sealed: readonly bigint[]) {
    this.#dir = dir;
    this.#storage = storage;
    this.#sealed = [...sealed];
    this.#base = base;
    this.#size = size;
  }

  sealedSegmentsEnd(count: number): bigint | undefined {
    if (this.#sealed.length === 0) return undefined;
    // A sealed segment ends where the next one (or the active one) starts.
    return count >= this.#sealed.length ? this.#base : (this.#sealed[count] as bigint);
  }

  get segmentsCount(): number {
    return this.#sealed.length + 1;
  }

  expireBefore(offset: bigint): void {
    // A sealed segment ends where the next one starts; the active segment is never deleted.
    while (this.#sealed.length > 0) {
      const next = this.#sealed[1] ?? this.#base;
      if (next > offset) break;
      const base = this.#sealed.shift() as bigint;
      rmSync(join(this.#dir, `${segmentName(base)}.log`), { force: true });
      rmSync(join(this.#dir, `${segmentName(base)}.index`), { force: true });
    }
  }

  /** Opens the active segment's files for appending, unless they are open. */
  #ensureOpen(): void {
    if (this.#log < 0) {
      const log = openSync(join(this.#dir, `${segmentName(this.#base)}.log`), 'a');
      let index: number;
      try {
        index = openSync(join(this.#dir, `${segmentName(this.#base)}.index`), 'a');
        this.#indexSize = fstatSync(index).size;
      } catch (error) {
        closeSync(log);
        throw error;
      }
      this.#log = log;
      this.#index = index;
    }
    this.#storage.appending(this);
  }

  append(batch: StoredBatch): void {
    if (this.#size >= this.#storage.segmentBytes) this.#roll(batch.baseOffset);
    const bytes = bytesOf(batch);
    const header = recordHeader(bytes);
    const record = new Uint8Array(RECORD_HEADER_SIZE + bytes.length);
    record.set(header, 0);
    record.set(bytes, RECORD_HEADER_SIZE);
    const entry = new Uint8Array(16);
    const view = new DataView(entry.buffer);
    view.setUint32(0, Number(batch.baseOffset - this.#base), true);
    view.setUint32(4, this.#size, true);
    view.setBigUint64(8, batch.timestamp, true);
    try {
      this.#ensureOpen();
      writeAll(this.#log, record);
      writeAll(this.#index, entry);
      if (this.#storage.fsync === 'always') fdatasyncSync(this.#log);
    } catch (cause) {
      // Cut a partial record off again: a torn record in the middle would hide every later one
      // from recovery. The append is refused, nothing was acknowledged.
      try {
        ftruncateSync(this.#log, this.#size);
        ftruncateSync(this.#index, this.#indexSize);
      } catch {
        // The next recovery cuts the torn tail instead.
      }
      throw new IggyError(1, `cannot append to ${this.#dir}`, { cause });
    }
    batch.load = this.loader(this.#base, this.#size, batch.length);
    this.#size += record.length;
    this.#indexSize += entry.length;
    if (this.#storage.fsync !== 'always') this.dirty = true;
  }

  /** Seals the full active segment (synced first; a failure refuses the append) and starts one at `base`. */
  #roll(base: bigint): void {
    try {
      this.#flushPending();
    } catch (cause) {
      throw new IggyError(1, `cannot sync the full segment of ${this.#dir}`, { cause });
    }
    this.closeAppend();
    this.#sealed.push(this.#base);
    this.#base = base;
    this.#size = 0;
    this.#indexSize = 0;
  }

  sync(): void {
    if (!this.dirty) return;
    // Clean only after the sync succeeded: a failed one is retried on the next tick. Files
    // closed meanwhile (for another partition's appends) are synced through a new descriptor,
    // which flushes the file's dirty pages all the same.
    if (this.#log >= 0) fdatasyncSync(this.#log);
    else {
      const fd = openSync(join(this.#dir, `${segmentName(this.#base)}.log`), 'r');
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    this.dirty = false;
  }

  /** The partition folder (for error reports). */
  get dir(): string {
    return this.#dir;
  }

  purge(): void {
    this.close();
    for (const f of readdirSync(this.#dir)) rmSync(join(this.#dir, f), { force: true });
    this.#sealed.length = 0;
    this.#base = 0n;
    this.#size = 0;
  }

  close(): void {
    try {
      this.#flushPending();
    } finally {
      this.closeAppend();
    }
  }

  /** Syncs what was appended and not yet synced (unless fsync is `never`), open or not. */
  #flushPending(): void {
    if (!this.dirty) return;
    if (this.#storage.fsync === 'never') this.dirty = false;
    else this.sync();
  }

  /**
   * Closes the append descriptors, without a sync: a roll and a close sync first
   * (`#flushPending`), and a partition closed to make room for another keeps its dirty mark for
   * the next periodic sync, which opens the file again, so making room never puts an fdatasync
   * on another partition's append.
   */
  closeAppend(): void {
    this.#storage.released(this);
    if (this.#log < 0) return;
    const log = this.#log;
    const index = this.#index;
    this.#log = -1;
    this.#index = -1;
    try {
      closeSync(log);
    } finally {
      closeSync(index);
    }
  }
}
