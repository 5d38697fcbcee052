/**
 * The unit of storage: one appended batch, kept as the canonical VSR batch record (256-byte
 * header, 48-byte-header frames) with the server fields stamped, exactly as Iggy 0.9 persists
 * it. Classic sends are converted into this form on admission, so both protocols read the same
 * records back.
 */

import {
  BATCH_HEADER_SIZE,
  FRAME_HEADER_SIZE,
  computeBatchChecksum,
  xxh3_64,
} from '@agdx/iggy-protocol';
import type { PolledMessage } from '@agdx/iggy-protocol';

/** A stamped batch held by a partition. */
export interface StoredBatch {
  /** Offset of its first message. */
  readonly baseOffset: bigint;
  /** Number of messages. */
  readonly count: number;
  /** The broker timestamp of every message of the batch, µs. */
  readonly timestamp: bigint;
  /**
   * The stamped batch record, while it is held in memory. On disk storage older batches drop it
   * and are read back through `load` (see {@link bytesOf}).
   */
  bytes: Uint8Array | undefined;
  /** Reads the record back from storage (disk only). */
  load?: (() => Uint8Array) | undefined;
  /** Length of the record in bytes. */
  readonly length: number;
  /**
   * Start of each frame inside the record, plus the end of the last one (`count + 1` entries);
   * filled on first use by {@link frameStarts}: an append that is only ever read whole never
   * needs them, and each table is a 4 KB allocation per 1,000-message batch.
   */
  starts?: Uint32Array;
  /** Classic message checksums, computed on the first classic poll (they never change). */
  classicChecksums?: BigUint64Array;
}

function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Frame start positions of a batch whose frames were already checked to tile it. */
export function framePositions(bytes: Uint8Array, count: number): Uint32Array {
  const view = viewOf(bytes);
  const out = new Uint32Array(count + 1);
  let pos = BATCH_HEADER_SIZE;
  for (let i = 0; i < count; i++) {
    out[i] = pos;
    pos += FRAME_HEADER_SIZE + view.getUint32(pos + 32, true) + view.getUint32(pos + 36, true);
  }
  out[count] = pos;
  return out;
}

/**
 * Stamps a producer batch in place (partition, base offset, base timestamp, recomputed batch
 * checksum) and wraps it. The caller owns `bytes` (a private copy of the request).
 */
export function stampBatch(bytes: Uint8Array, count: number, partitionId: number, baseOffset: bigint, timestamp: bigint): StoredBatch {
  const view = viewOf(bytes);
  view.setBigUint64(0, BigInt(partitionId), true);
  view.setBigUint64(8, baseOffset, true);
  view.setBigUint64(16, timestamp, true);
  view.setBigUint64(40, computeBatchChecksum(bytes, count), true);
  return { baseOffset, count, timestamp, bytes, length: bytes.length };
}

/** The frame start table of a batch (see {@link StoredBatch.starts}), computed once. */
export function frameStarts(batch: StoredBatch): Uint32Array {
  return (batch.starts ??= framePositions(bytesOf(batch), batch.count));
}

/** The record bytes of a batch, from memory or read back from storage. */
export function bytesOf(batch: StoredBatch): Uint8Array {
  if (batch.bytes !== undefined) return batch.bytes;
  if (batch.load === undefined) throw new Error('a stored batch has neither bytes nor a loader');
  return batch.load();
}

/** Wraps a batch read back from storage (already stamped). */
export function storedBatchOf(bytes: Uint8Array): StoredBatch {
  const view = viewOf(bytes);
  const count = view.getUint32(48, true);
  return { baseOffset: view.getBigUint64(8, true), count, timestamp: view.getBigUint64(16, true), bytes, length: bytes.length, starts: framePositions(bytes, count) };
}

const U32_MAX = 0xffff_ffffn;

/**
 * Builds an unstamped canonical batch from classic messages: frame checksums computed, the batch
 * checksum left to stamping. Ids of 0 get a random UUID v4, as the classic server does (one
 * random draw for the whole batch). Origin deltas beyond the frame's u32 (71 minutes) are
 * clamped: a classic producer may send any origin, the canonical format cannot hold it.
 */
export function batchFromClassic(messages: readonly PolledMessage[]): Uint8Array {
  let total = BATCH_HEADER_SIZE;
  let origin = messages[0]?.originTimestamp ?? 0n;
  let zeroIds = 0;
  for (const m of messages) {
    total += FRAME_HEADER_SIZE + m.payload.length + m.rawHeaders.length;
    if (m.originTimestamp < origin) origin = m.originTimestamp;
    if (m.id === 0n) zeroIds++;
  }
  const random = zeroIds > 0 ? crypto.getRandomValues(new Uint8Array(zeroIds * 16)) : undefined;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setBigUint64(24, origin, true);
  view.setBigUint64(32, BigInt(total), true);
  view.setUint32(48, messages.length, true);
  let pos = BATCH_HEADER_SIZE;
  let r = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as PolledMessage;
    if (m.id === 0n && random !== undefined) {
      out.set(random.subarray(r, r + 16), pos + 8);
      // UUID v4 in the numeric (u128 little-endian) layout the 0.11 SDKs use.
      out[pos + 8 + 9] = ((out[pos + 8 + 9] as number) & 0x0f) | 0x40;
      out[pos + 8 + 7] = ((out[pos + 8 + 7] as number) & 0x3f) | 0x80;
      r += 16;
    } else {
      view.setBigUint64(pos + 8, m.id & 0xffff_ffff_ffff_ffffn, true);
      view.setBigUint64(pos + 16, m.id >> 64n, true);
    }
    const delta = m.originTimestamp - origin;
    view.setUint32(pos + 24, i, true);
    view.setUint32(pos + 28, Number(delta > U32_MAX ? U32_MAX : delta), true);
    view.setUint32(pos + 32, m.rawHeaders.length, true);
    view.setUint32(pos + 36, m.payload.length, true);
    out.set(m.payload, pos + FRAME_HEADER_SIZE);
    out.set(m.rawHeaders, pos + FRAME_HEADER_SIZE + m.payload.length);
    const end = pos + FRAME_HEADER_SIZE + m.payload.length + m.rawHeaders.length;
    view.setBigUint64(pos, xxh3_64(out.subarray(pos + 8, end)), true);
    pos = end;
  }
  return out;
}

/** Bytes of the record for messages `from..to-1` of `batch` (see {@link writeRecordSlice}). */
export function recordSliceLength(batch: StoredBatch, from: number, to: number): number {
  if (from === 0 && to === batch.count) return batch.length;
  const starts = frameStarts(batch);
  return BATCH_HEADER_SIZE + (starts[to] as number) - (starts[from] as number);
}

/**
 * Writes the record for messages `from..to-1` (indices within the batch) at `pos` of `out`,
 * which must have {@link recordSliceLength} bytes there. A whole batch is copied as stored; a
 * part gets a rewritten header (length, count, checksum) and keeps its frames and their original
 * offset deltas, like Iggy's sliced poll records. Written straight into the reply, a part costs
 * no buffer of its own. Returns the bytes written.
 */
export function writeRecordSlice(batch: StoredBatch, from: number, to: number, out: Uint8Array, pos: number): number {
  const bytes = bytesOf(batch);
  if (from === 0 && to === batch.count) {
    out.set(bytes, pos);
    return bytes.length;
  }
  const starts = frameStarts(batch);
  const start = starts[from] as number;
  const end = starts[to] as number;
  const length = BATCH_HEADER_SIZE + end - start;
  out.set(bytes.subarray(0, BATCH_HEADER_SIZE), pos);
  out.set(bytes.subarray(start, end), pos + BATCH_HEADER_SIZE);
  const record = out.subarray(pos, pos + length);
  const view = viewOf(record);
  view.setBigUint64(32, BigInt(length), true);
  view.setUint32(48, to - from, true);
  view.setBigUint64(40, computeBatchChecksum(record, to - from), true);
  return length;
}

/** Payload plus header bytes of the messages `from..to-1` (what Iggy counts as size). */
export function messageBytes(batch: StoredBatch, from: number, to: number): number {
  // The frames tile the record (checked on admission), so a whole batch needs no table.
  if (from === 0 && to === batch.count) return batch.length - BATCH_HEADER_SIZE;
  const starts = frameStarts(batch);
  return (starts[to] as number) - (starts[from] as number);
}
