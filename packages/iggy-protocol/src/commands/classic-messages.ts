/**
 * The classic (0.10) message format: `[64-byte header][payload][user headers]`. Header: checksum
 * u64 @0, id u128 @8, offset u64 @24, timestamp u64 @32, origin_timestamp u64 @40,
 * user_headers_length u32 @48, payload_length u32 @52, reserved u64 @56. The server computes the
 * checksum (XXH3-64 over bytes 8..end) after assigning offset and timestamp.
 */

import { xxh3_64 } from '../checksums.js';
import { IggyCodecError, IggyIntegrityError } from '../errors.js';
import type { ByteReader } from '../internal/byte-reader.js';
import { checkU128, checkU64 } from '../internal/checks.js';
import type { PolledMessage } from './messages.js';

/** Size of the classic message header. */
export const CLASSIC_MESSAGE_HEADER_SIZE = 64;

const U64 = 0xffff_ffff_ffff_ffffn;

/** A message in classic layout, all fields explicit. */
export interface ClassicMessage {
  /** XXH3-64 checksum (0 from producers). `undefined` on encode → computed. */
  readonly checksum?: bigint;
  /** The u128 id (0 = let the server generate). */
  readonly id: bigint;
  /** Partition offset (0 from producers). */
  readonly offset: bigint;
  /** Append time µs (0 from producers). */
  readonly timestamp: bigint;
  /** Producer clock µs. */
  readonly originTimestamp: bigint;
  /** Payload. */
  readonly payload: Uint8Array;
  /** User-header block. */
  readonly rawHeaders: Uint8Array;
}

/** Size of a classic message on the wire. */
export function classicMessageSize(m: { readonly payload: Uint8Array; readonly rawHeaders: Uint8Array }): number {
  return CLASSIC_MESSAGE_HEADER_SIZE + m.payload.length + m.rawHeaders.length;
}

/**
 * Writes one classic message at `pos` of `out` and returns the end position. An undefined
 * checksum is computed (requires `initChecksums()`).
 */
export function writeClassicMessage(out: Uint8Array, view: DataView, pos: number, m: ClassicMessage): number {
  const id = checkU128(m.id, 'id');
  view.setBigUint64(pos + 8, id & U64, true);
  view.setBigUint64(pos + 16, id >> 64n, true);
  view.setBigUint64(pos + 24, checkU64(m.offset, 'offset'), true);
  view.setBigUint64(pos + 32, checkU64(m.timestamp, 'timestamp'), true);
  view.setBigUint64(pos + 40, checkU64(m.originTimestamp, 'originTimestamp'), true);
  view.setUint32(pos + 48, m.rawHeaders.length, true);
  view.setUint32(pos + 52, m.payload.length, true);
  view.setBigUint64(pos + 56, 0n, true);
  out.set(m.payload, pos + CLASSIC_MESSAGE_HEADER_SIZE);
  out.set(m.rawHeaders, pos + CLASSIC_MESSAGE_HEADER_SIZE + m.payload.length);
  const end = pos + classicMessageSize(m);
  view.setBigUint64(pos, m.checksum ?? xxh3_64(out.subarray(pos + 8, end)), true);
  return end;
}

/** Reads one classic message; with `verify`, checks its checksum (context.iggyCode 4027 on mismatch). */
export function readClassicMessage(r: ByteReader, verify: boolean): PolledMessage {
  const start = r.pos;
  r.need(CLASSIC_MESSAGE_HEADER_SIZE, 'message header');
  const checksum = r.u64('checksum');
  const id = r.u128('id');
  const offset = r.u64('offset');
  const timestamp = r.u64('timestamp');
  const originTimestamp = r.u64('originTimestamp');
  const headersLength = r.u32('userHeadersLength');
  const payloadLength = r.u32('payloadLength');
  r.u64('reserved');
  const payload = r.bytesView(payloadLength, 'payload');
  const rawHeaders = r.bytesView(headersLength, 'userHeaders');
  if (verify && xxh3_64(r.bytes.subarray(start + 8, r.pos)) !== checksum) {
    throw new IggyIntegrityError(`message at offset ${offset} has a bad checksum`, { context: { offset: String(offset), iggyCode: 4027 } });
  }
  return { offset, timestamp, originTimestamp, id, checksum, payload, rawHeaders };
}

/** Raised when classic index entries break the rules (offset/timestamp must be 0, positions must match). */
export function indexError(message: string, iggyCode: number): IggyCodecError {
  return new IggyCodecError(`SendMessages index: ${message}`, { context: { iggyCode } });
}
