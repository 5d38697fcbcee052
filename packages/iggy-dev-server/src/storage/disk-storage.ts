/**
 * On-disk storage. Layout under the data folder:
 *
 * - `metadata.json`: streams, topics, groups and stored offsets (see `metadata.ts`);
 * - `users.json`: users, permissions and personal access token digests (see `users.ts`);
 * - `streams/<stream id>/<topic id>/<partition id>/<base offset, 20 digits>.log`: append-only
 *   segment files of framed batch records (see `record-file.ts`);
 * - the same name with `.index`: 16 bytes per batch `[relative offset u32][position u32][timestamp u64]`,
 *   rebuilt from the log on every start (the log is authoritative).
 *
 * fsync policy: `always` syncs the segment after every appended batch and the metadata file after
 * every change, before the reply is sent; `interval` syncs dirty segments on a timer; `never`
 * leaves it to the operating system.
 */

import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IggyError, decodeOptions } from '@agdx/iggy-protocol';
import { DevServerError } from '../errors.js';
import type { StoredBatch } from '../log/stored-batch.js';
import { storedBatchOf } from '../log/stored-batch.js';
import { makeFolders } from './make-folders.js';
import type { MetadataSnapshot } from './metadata.js';
import type { UsersSnapshot } from './users.js';
import { scanRecords } from './record-file.js';
import { RecordWindow } from './record-window.js';
import type { RecoveryNotice } from './recovery-notice.js';
import { MAX_OPEN_PARTITIONS, SegmentWriter, segmentName, writeAll } from './segment-writer.js';
import type { FsyncPolicy, SegmentHost } from './segment-writer.js';
import type { OpenedPartition, Storage } from './storage.js';

export type { FsyncPolicy } from './segment-writer.js';

/** Options of {@link DiskStorage}. */
export interface DiskStorageOptions {
  /** The data folder (created when missing). */
  readonly dir: string;
  /** fsync policy (default `always`). */
  readonly fsync?: FsyncPolicy;
  /** Period of `interval` syncs, ms (default 1000). */
  readonly fsyncIntervalMs?: number;
  /** A new segment starts once the current one reaches this many bytes (default 64 MiB). */
  readonly segmentBytes?: number;
  /** Record bytes kept in memory per partition; older ones are read back from the segments (default 16 MiB). */
  readonly cacheBytesPerPartition?: number;
  /**
   * Called with a `storage` DevServerError when a background sync fails (fsync `interval`);
   * nobody waits for those syncs, so this is the only place their failure shows.
   */
  readonly onError?: (error: DevServerError) => void;
  /** Called, while the folder is opened, for each partition whose torn tail recovery cut. */
  readonly onRecovery?: (notice: RecoveryNotice) => void;
}

const METADATA = 'metadata.json';
const USERS = 'users.json';
const LOCK = 'server.lock';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Takes the data folder: `server.lock` holds the owner's pid. A lock left by a process that no
 * longer runs (a crash) is taken over; a live owner is refused, since two servers appending to
 * the same segments would corrupt them.
 */
function lockFolder(dir: string): string {
  const file = join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return file;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) {
        throw new DevServerError('storage', `the data folder ${dir} is in use by process ${owner}`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new DevServerError('storage', `cannot lock the data folder ${dir}`);
}

/** The format version of `metadata.json` and `users.json` this server reads and writes. */
const FORMAT_VERSION = 1;

/** A `storage` DevServerError for a file of another format version, naming both versions. */
function refuseOtherFormat(file: string, parsed: unknown): void {
  const version = typeof parsed === 'object' && parsed !== null ? (parsed as { version?: unknown }).version : undefined;
  if (version === FORMAT_VERSION) return;
  const found = typeof version === 'number' ? `version ${version}` : 'no format version';
  throw new DevServerError('storage', `${file} has ${found}; this server reads version ${FORMAT_VERSION} (written by ${typeof version === 'number' && version > FORMAT_VERSION ? 'a newer' : 'another'} server?), so it does not start`);
}

/** Storage in a data folder, with crash recovery on open. */
export class DiskStorage implements Storage, SegmentHost {
  readonly kind: 'disk' = 'disk';
  /** The fsync policy. */
  readonly fsync: FsyncPolicy;
  /** Segment size limit. */
  readonly segmentBytes: number;
  /** Record bytes kept in memory per partition. */
  readonly cacheBytesPerPartition: number;
  readonly #dir: string;
  readonly #writers = new Map<string, SegmentWriter>();
  /** Writers with open append descriptors, least recently appended first. */
  readonly #appending = new Set<SegmentWriter>();
  /** The last writer moved to the end of `#appending`. */
  #newest: SegmentWriter | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lock: string | undefined;
  readonly #onError: (error: DevServerError) => void;
  readonly #onRecovery: (notice: RecoveryNotice) => void;

  constructor(options: DiskStorageOptions) {
    this.#dir = options.dir;
    this.#onError = options.onError ?? (() => undefined);
    this.#onRecovery = options.onRecovery ?? (() => undefined);
    this.fsync = options.fsync ?? 'always';
    this.segmentBytes = options.segmentBytes ?? 64 * 1024 * 1024;
    this.cacheBytesPerPartition = options.cacheBytesPerPartition ?? 16 * 1024 * 1024;
    try {
      makeFolders(join(this.#dir, 'streams'));
    } catch (cause) {
      throw new DevServerError('storage', `cannot create the data folder ${this.#dir}`, { cause });
    }
    this.#lock = lockFolder(this.#dir);
    if (this.fsync === 'interval') {
      this.#timer = setInterval(() => this.#syncAll(), options.fsyncIntervalMs ?? 1000);
      this.#timer.unref();
    }
  }

  #syncAll(): void {
    for (const w of this.#writers.values()) {
      try {
        w.sync();
      } catch (cause) {
        // Retried on the next tick and at close; the operator hears about every failure.
        this.#onError(new DevServerError('storage', `periodic fsync of ${w.dir} failed`, { cause }));
      }
    }
  }

  /**
   * A writer appends: it becomes the most recent, and past {@link MAX_OPEN_PARTITIONS} the least
   * recently appended one closes its files (without a sync: a dirty one is synced by the next
   * periodic sync, or at close).
   */
  appending(w: SegmentWriter): void {
    // Appends to one partition in a row are the common case: nothing to reorder.
    if (this.#newest === w) return;
    this.#newest = w;
    this.#appending.delete(w);
    this.#appending.add(w);
    while (this.#appending.size > MAX_OPEN_PARTITIONS) {
      const oldest = this.#appending.values().next().value as SegmentWriter;
      try {
        oldest.closeAppend();
      } catch (cause) {
        this.#onError(new DevServerError('storage', `cannot close the segment files of ${oldest.dir}`, { cause }));
      }
    }
  }

  /** A writer closed its append descriptors. */
  released(w: SegmentWriter): void {
    if (this.#newest === w) this.#newest = undefined;
    this.#appending.delete(w);
  }

  loadMetadata(): MetadataSnapshot | undefined {
    const file = join(this.#dir, METADATA);
    if (!existsSync(file)) return undefined;
    let parsed: MetadataSnapshot;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8')) as MetadataSnapshot;
    } catch (cause) {
      throw new DevServerError('storage', `cannot read ${file}`, { cause });
    }
    // A newer format is refused before anything is opened: recovery would take its segments for
    // torn tails and cut them, and the next metadata write would drop what this version cannot read.
    refuseOtherFormat(file, parsed);
    try {
      if (!Array.isArray(parsed.streams)) throw new Error('no streams list');
      for (const s of parsed.streams) for (const t of s.topics) decodeOptions(Buffer.from(t.options, 'base64'));
      return parsed;
    } catch (cause) {
      throw new DevServerError('storage', `cannot read ${file}`, { cause });
    }
  }

  saveMetadata(snapshot: MetadataSnapshot): void {
    this.#writeJson(METADATA, snapshot);
  }

  loadUsers(): UsersSnapshot | undefined {
    const file = join(this.#dir, USERS);
    if (!existsSync(file)) return undefined;
    let parsed: UsersSnapshot;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8')) as UsersSnapshot;
    } catch (cause) {
      throw new DevServerError('storage', `cannot read ${file}`, { cause });
    }
    refuseOtherFormat(file, parsed);
    return parsed;
  }

  saveUsers(snapshot: UsersSnapshot): void {
    this.#writeJson(USERS, snapshot);
  }

  /** Replaces a JSON file atomically: temporary file, fsync (unless `never`), rename. */
  #writeJson(name: string, value: unknown): void {
    const file = join(this.#dir, name);
    const tmp = `${file}.tmp`;
    try {
      const fd = openSync(tmp, 'w');
      try {
        writeAll(fd, Buffer.from(JSON.stringify(value)));
        if (this.fsync !== 'never') fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (cause) {
      // The previous file stays intact (the rename is atomic); the client is told.
      throw new IggyError(1, `cannot save ${file}`, { cause });
    }
    if (this.fsync === 'always') this.#syncDir(this.#dir);
  }

  #syncDir(dir: string): void {
    try {
      const fd = openSync(dir, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Some platforms cannot fsync a directory; the rename is still atomic.
    }
  }

  #partitionDir(streamId: number, topicId: number, partitionId: number): string {
    return join(this.#dir, 'streams', String(streamId), String(topicId), String(partitionId));
  }

  openPartition(streamId: number, topicId: number, partitionId: number): OpenedPartition {
    const dir = this.#partitionDir(streamId, topicId, partitionId);
    makeFolders(dir);
    const key = `${streamId}/${topicId}/${partitionId}`;
    this.#writers.get(key)?.close();
    const segments = readdirSync(dir)
      .filter((f) => /^\d{20}\.log$/.test(f))
      .map((f) => BigInt(f.slice(0, 20)))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const batches: StoredBatch[] = [];
    const located: Array<{ batch: StoredBatch; base: bigint; position: number }> = [];
    // Batches still holding bytes (views into their segment's contents), oldest first: only the
    // newest cacheBytesPerPartition stay, so opening a large partition never holds it all.
    const hot = new RecordWindow(this.cacheBytesPerPartition);
    let expected: bigint | undefined;
    let lastBase = 0n;
    let lastSize = 0;
    let cut: { segment: string; keptBytes: number; droppedBytes: number } | undefined;
    const removed: string[] = [];
    let removedBytes = 0;
    for (const base of segments) {
      const logPath = join(dir, `${segmentName(base)}.log`);
      const indexPath = join(dir, `${segmentName(base)}.index`);
      if (cut !== undefined) {
        // Everything after a torn record was never acknowledged.
        removedBytes += statSync(logPath, { throwIfNoEntry: false })?.size ?? 0;
        removed.push(`${segmentName(base)}.log`);
        rmSync(logPath, { force: true });
        rmSync(indexPath, { force: true });
        continue;
      }
      const file = new Uint8Array(readFileSync(logPath));
      let next = expected ?? base;
      const scan = scanRecords(file, (offset, count) => {
        if (offset !== next) return false;
        next = offset + BigInt(count);
        return true;
      });
      if (scan.validLength < file.length) {
        const fd = openSync(logPath, 'r+');
        try {
          ftruncateSync(fd, scan.validLength);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        cut = { segment: `${segmentName(base)}.log`, keptBytes: scan.validLength, droppedBytes: file.length - scan.validLength };
      }
      const index = new Uint8Array(scan.records.length * 16);
      const view = new DataView(index.buffer);
      scan.records.forEach((r, i) => {
        const b = storedBatchOf(r.batch);
        batches.push(b);
        hot.add(b);
        located.push({ batch: b, base, position: r.position });
        view.setUint32(i * 16, Number(b.baseOffset - base), true);
        view.setUint32(i * 16 + 4, r.position, true);
        view.setBigUint64(i * 16 + 8, b.timestamp, true);
      });
      writeFileSync(indexPath, index);
      expected = next;
      lastBase = base;
      lastSize = scan.validLength;
    }
    // The batches kept in memory get bytes of their own, so no segment's contents stay behind them.
    hot.detach();
    const kept = segments.filter((b) => b <= lastBase);
    const writer = new SegmentWriter(dir, this, kept.length === 0 ? 0n : lastBase, lastSize, kept.slice(0, -1));
    this.#writers.set(key, writer);
    for (const l of located) l.batch.load = writer.loader(l.base, l.position, l.batch.length);
    if (cut !== undefined) {
      try {
        this.#onRecovery({ streamId, topicId, partitionId, ...cut, removedSegments: removed, removedBytes, nextOffset: expected ?? lastBase });
      } catch {
        // A failing reporter must not stop the start.
      }
    }
    return { writer, batches, startOffset: kept.length === 0 ? 0n : lastBase };
  }

  dropPartition(streamId: number, topicId: number, partitionId: number): void {
    const key = `${streamId}/${topicId}/${partitionId}`;
    this.#writers.get(key)?.close();
    this.#writers.delete(key);
    rmSync(this.#partitionDir(streamId, topicId, partitionId), { recursive: true, force: true });
  }

  dropTopic(streamId: number, topicId: number): void {
    for (const [key, w] of this.#writers) {
      if (key.startsWith(`${streamId}/${topicId}/`)) {
        w.close();
        this.#writers.delete(key);
      }
    }
    rmSync(join(this.#dir, 'streams', String(streamId), String(topicId)), { recursive: true, force: true });
  }

  dropStream(streamId: number): void {
    for (const [key, w] of this.#writers) {
      if (key.startsWith(`${streamId}/`)) {
        w.close();
        this.#writers.delete(key);
      }
    }
    rmSync(join(this.#dir, 'streams', String(streamId)), { recursive: true, force: true });
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    for (const w of this.#writers.values()) w.close();
    this.#writers.clear();
    if (this.#lock !== undefined) rmSync(this.#lock, { force: true });
    this.#lock = undefined;
  }
}
