/**
 * The record framing of segment files. Each appended batch is one record:
 * `[magic u32 "IGDR"][length u32][xxh3-64 of the batch u64][batch]`. A record whose header,
 * length or checksum does not hold marks the torn tail of a crash: recovery cuts the file there.
 */

import { BATCH_HEADER_SIZE, decodeMessageBatch, xxh3_64 } from '@agdx/iggy-protocol';

/** Record magic, "IGDR" little-endian. */
export const RECORD_MAGIC = 0x52444749;
/** Bytes before each batch. */
export const RECORD_HEADER_SIZE = 16;

/** Encodes the record header of a batch. */
export function recordHeader(batch: Uint8Array): Uint8Array {
  const out = new Uint8Array(RECORD_HEADER_SIZE);
  const view = new DataView(out.buffer);
  view.setUint32(0, RECORD_MAGIC, true);
  view.setUint32(4, batch.length, true);
  view.setBigUint64(8, xxh3_64(batch), true);
  return out;
}

/** One valid record found by {@link scanRecords}. */
export interface ScannedRecord {
  /** Where the record starts in the file. */
  readonly position: number;
  /** The batch bytes (a view into the file contents). */
  readonly batch: Uint8Array;
}

/** The result of scanning a segment file. */
export interface ScanResult {
  /** The valid records, in order. */
  readonly records: readonly ScannedRecord[];
  /** The length of the valid prefix; anything after it is a torn tail. */
  readonly validLength: number;
}

/**
 * Walks the records of a segment. `expectOffset(batch)` may refuse a batch whose base offset
 * breaks continuity; the scan stops at the first record that fails any check.
 */
export function scanRecords(file: Uint8Array, expectOffset: (baseOffset: bigint, count: number) => boolean): ScanResult {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const records: ScannedRecord[] = [];
  let pos = 0;
  while (file.length - pos >= RECORD_HEADER_SIZE) {
    if (view.getUint32(pos, true) !== RECORD_MAGIC) break;
    const length = view.getUint32(pos + 4, true);
    if (length < BATCH_HEADER_SIZE || length > file.length - pos - RECORD_HEADER_SIZE) break;
    const batch = file.subarray(pos + RECORD_HEADER_SIZE, pos + RECORD_HEADER_SIZE + length);
    if (xxh3_64(batch) !== view.getBigUint64(pos + 8, true)) break;
    try {
      const decoded = decodeMessageBatch(batch, 0, { strict: false });
      if (decoded.bytes.length !== batch.length || decoded.header.messageCount < 1) break;
      if (!expectOffset(decoded.header.baseOffset, decoded.header.messageCount)) break;
    } catch {
      break;
    }
    records.push({ position: pos, batch });
    pos += RECORD_HEADER_SIZE + length;
  }
  return { records, validLength: pos };
}
