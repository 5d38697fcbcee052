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
  encodeMessageBatch,
} from '@agdx/iggy-protocol';
import type { ClassicMessage, PolledMessage } from '@agdx/iggy-protocol';

/** A stamped batch held by a partition. */
export interface StoredBatch {
  /** Offset of its first message. */
  readonly baseOffset: bigint;
  /** Number of messages. */
  readonly count: number;
  /** The broker timestamp of every message of the batch, µs. */
  readonly timestamp: bigint;
  /** The stamped batch record. */
  readonly bytes: Uint8Array;
  /** Start of each frame inside `bytes`, plus the end of the last one (`count + 1` entries). */
  readonly frames: Uint32Array;
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
  return { baseOffset, count, timestamp, bytes, frames: framePositions(bytes, count) };
}

/** Wraps a batch read back from storage (already stamped). */
export function storedBatchOf(bytes: Uint8Array): StoredBatch {
  const view = viewOf(bytes);
  const count = view.getUint32(48, true);
  return { baseOffset: view.getBigUint64(8, true), count, timestamp: view.getBigUint64(16, true), bytes, frames: framePositions(bytes, count) };
}

/** Builds an unstamped canonical batch from classic messages (ids of 0 get a random UUID, as the classic server does). */
export function batchFromClassic(messages: readonly PolledMessage[]): Uint8Array {
  return encodeMessageBatch(messages.map((m) => ({ id: m.id, payload: m.payload, rawHeaders: m.rawHeaders, originTimestamp: m.originTimestamp })));
}

/**
 * The record for messages `from..to-1` (indices within the batch). A whole batch is returned as
 * stored; a part gets a rewritten header (length, count, checksum) and keeps its frames and
 * their original offset deltas, like Iggy's sliced poll records.
 */
export function sliceRecord(batch: StoredBatch, from: number, to: number): Uint8Array {
  if (from === 0 && to === batch.count) return batch.bytes;
  const start = batch.frames[from] as number;
  const end = batch.frames[to] as number;
  const out = new Uint8Array(BATCH_HEADER_SIZE + end - start);
  out.set(batch.bytes.subarray(0, BATCH_HEADER_SIZE), 0);
  out.set(batch.bytes.subarray(start, end), BATCH_HEADER_SIZE);
  const view = viewOf(out);
  view.setBigUint64(32, BigInt(out.length), true);
  view.setUint32(48, to - from, true);
  view.setBigUint64(40, computeBatchChecksum(out, to - from), true);
  return out;
}

/** The messages `from..to-1` in classic form (the checksum is computed by the encoder). */
export function classicMessages(batch: StoredBatch, from: number, to: number, into: ClassicMessage[]): void {
  const view = viewOf(batch.bytes);
  const origin = view.getBigUint64(24, true);
  for (let i = from; i < to; i++) {
    const pos = batch.frames[i] as number;
    const headersLength = view.getUint32(pos + 32, true);
    const payloadLength = view.getUint32(pos + 36, true);
    const payloadStart = pos + FRAME_HEADER_SIZE;
    into.push({
      id: (view.getBigUint64(pos + 16, true) << 64n) | view.getBigUint64(pos + 8, true),
      offset: batch.baseOffset + BigInt(i),
      timestamp: batch.timestamp,
      originTimestamp: origin + BigInt(view.getUint32(pos + 28, true)),
      payload: batch.bytes.subarray(payloadStart, payloadStart + payloadLength),
      rawHeaders: batch.bytes.subarray(payloadStart + payloadLength, payloadStart + payloadLength + headersLength),
    });
  }
}

/** Payload plus header bytes of the messages `from..to-1` (what Iggy counts as size). */
export function messageBytes(batch: StoredBatch, from: number, to: number): number {
  return (batch.frames[to] as number) - (batch.frames[from] as number);
}
