/**
 * The size limit of one appended batch. Iggy takes a batch in one request frame of at most
 * 64 MiB, so a larger batch is not refused cleanly there: the server drops the connection, and
 * the client can only report an unknown outcome. MemoryLog has no frame, but a batch it accepts
 * must be one a server accepts too, so every transport counts a batch the same way and refuses
 * it with `InvalidArgumentError` before copying or sending a byte.
 */

import { InvalidArgumentError } from './errors.js';

/**
 * What each record adds to a batch besides its payload and header block: the largest
 * per-message framing of Iggy's send formats (the classic 64-byte message header plus its 16-byte
 * index entry; the VSR frame header is 48 bytes).
 */
export const RECORD_FRAMING_BYTES = 80;

/**
 * The largest batch, in bytes counted by {@link batchRecordBytes}: a 64 MiB frame less 64 KiB
 * for the request's own header, names, partitioning and batch header. The largest single record
 * (a 64,000,000-byte payload with a 100,000-byte header block) fits.
 */
export const MAX_BATCH_BYTES: number = 64 * 1024 * 1024 - 64 * 1024;

/** What one record counts towards {@link MAX_BATCH_BYTES}: payload, header block and framing. */
export function batchRecordBytes(payloadBytes: number, headerBlockBytes: number): number {
  return payloadBytes + headerBlockBytes + RECORD_FRAMING_BYTES;
}

/**
 * Throws when a batch's running size passed {@link MAX_BATCH_BYTES}.
 * @throws InvalidArgumentError naming the record at which the batch became too large.
 */
export function checkBatchBytes(total: number, index: number): void {
  if (total > MAX_BATCH_BYTES) {
    throw new InvalidArgumentError(
      `the batch is larger than ${MAX_BATCH_BYTES} bytes (payloads, header blocks and ${RECORD_FRAMING_BYTES} bytes per record)`,
      { context: { index, bytes: total } },
    );
  }
}
