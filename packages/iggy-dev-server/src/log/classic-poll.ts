/**
 * Classic poll replies straight from stored batches: `[partition u32][current u64][count u32]`
 * then each message as `[64-byte header][payload][user headers]`. The classic checksum covers
 * the offset and timestamp, which never change once stored, so each message's checksum is
 * computed on its first classic poll and cached on the batch.
 */

import { CLASSIC_MESSAGE_HEADER_SIZE, FRAME_HEADER_SIZE, xxh3_64 } from '@agdx/iggy-protocol';
import type { BatchSlice } from './partition-log.js';
import type { StoredBatch } from './stored-batch.js';
import { bytesOf, frameStarts, messageBytes } from './stored-batch.js';

function checksumsOf(batch: StoredBatch): BigUint64Array {
  return (batch.classicChecksums ??= new BigUint64Array(batch.count));
}

/** Encodes a classic poll reply. */
export function encodeClassicPoll(partitionId: number, currentOffset: bigint, slices: readonly BatchSlice[]): Uint8Array {
  let size = 16;
  let count = 0;
  for (const s of slices) {
    count += s.to - s.from;
    size += (s.to - s.from) * (CLASSIC_MESSAGE_HEADER_SIZE - FRAME_HEADER_SIZE) + messageBytes(s.batch, s.from, s.to);
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, partitionId, true);
  view.setBigUint64(4, currentOffset, true);
  view.setUint32(12, count, true);
  let pos = 16;
  for (const { batch, from, to } of slices) {
    const bytes = bytesOf(batch);
    const src = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const origin = src.getBigUint64(24, true);
    const sums = checksumsOf(batch);
    const starts = frameStarts(batch);
    for (let i = from; i < to; i++) {
      const at = starts[i] as number;
      const headersLength = src.getUint32(at + 32, true);
      const payloadLength = src.getUint32(at + 36, true);
      out.set(bytes.subarray(at + 8, at + 24), pos + 8);
      view.setBigUint64(pos + 24, batch.baseOffset + BigInt(i), true);
      view.setBigUint64(pos + 32, batch.timestamp, true);
      view.setBigUint64(pos + 40, origin + BigInt(src.getUint32(at + 28, true)), true);
      view.setUint32(pos + 48, headersLength, true);
      view.setUint32(pos + 52, payloadLength, true);
      out.set(bytes.subarray(at + FRAME_HEADER_SIZE, at + FRAME_HEADER_SIZE + payloadLength + headersLength), pos + CLASSIC_MESSAGE_HEADER_SIZE);
      const end = pos + CLASSIC_MESSAGE_HEADER_SIZE + payloadLength + headersLength;
      let sum = sums[i] as bigint;
      if (sum === 0n) sums[i] = sum = xxh3_64(out.subarray(pos + 8, end));
      view.setBigUint64(pos, sum, true);
      pos = end;
    }
  }
  return out;
}
