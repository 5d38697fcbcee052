/**
 * PollMessages (100). The request is the same in both protocols; the reply is a 16-byte prefix
 * `[partition_id u32][current_offset u64][count u32]` followed by classic messages or by stored
 * VSR batch records.
 */

import { IggyCodecError } from '../errors.js';
import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, checkU64 } from '../internal/checks.js';
import type { IggyProtocol } from '../protocol.js';
import type { ClassicMessage } from './classic-messages.js';
import { CLASSIC_MESSAGE_HEADER_SIZE, classicMessageSize, readClassicMessage, writeClassicMessage } from './classic-messages.js';
import { batchToPolledMessages, decodeMessageBatch } from './message-batch.js';
import type { PolledMessage } from './messages.js';
import type { Consumer, Identifier, PollingStrategy } from './primitives.js';
import { readConsumer, readIdentifier, readOptionalPartition, readPollingStrategy, writeConsumer, writeIdentifier, writeOptionalPartition, writePollingStrategy } from './primitives.js';

/** The partition id a VSR group poll returns when the client must re-sync its assignment. */
export const RESYNC_REQUIRED_PARTITION: number = 0xffff_ffff;

/** PollMessages request. */
export interface PollMessagesRequest {
  /** Consumer or consumer group. */
  readonly consumer: Consumer;
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partition; VSR group polls must name it. */
  readonly partitionId?: number;
  /** Where to start. */
  readonly strategy: PollingStrategy;
  /** Most messages to return. */
  readonly count: number;
  /** Store the offset of the last returned message. */
  readonly autoCommit: boolean;
}

/** Encodes `[Consumer][stream][topic][flag][partition][strategy][count u32][auto_commit u8]`. */
export function encodePollMessagesRequest(req: PollMessagesRequest): Uint8Array {
  const w = new ByteWriter(64);
  writeConsumer(w, req.consumer);
  writeIdentifier(w, req.stream, 'stream');
  writeIdentifier(w, req.topic, 'topic');
  writeOptionalPartition(w, req.partitionId);
  writePollingStrategy(w, req.strategy);
  w.u32(checkU32(req.count, 'count')).u8(req.autoCommit ? 1 : 0);
  return w.finish().slice();
}

/** Decodes a PollMessages request (server side). */
export function decodePollMessagesRequest(payload: Uint8Array): PollMessagesRequest {
  const r = new ByteReader(payload, 'PollMessages');
  const consumer = readConsumer(r);
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const partitionId = readOptionalPartition(r);
  const strategy = readPollingStrategy(r);
  const count = r.u32('count');
  const autoCommit = r.bool('autoCommit');
  r.end();
  const base = { consumer, stream, topic, strategy, count, autoCommit };
  return partitionId === undefined ? base : { ...base, partitionId };
}

/** A decoded poll reply. */
export interface PolledMessages {
  /** The partition read ({@link RESYNC_REQUIRED_PARTITION} = re-sync the group). */
  readonly partitionId: number;
  /** The partition's highest offset (0 when empty). */
  readonly currentOffset: bigint;
  /** The messages in offset order. */
  readonly messages: readonly PolledMessage[];
}

/** Options of {@link decodePollMessagesResponse}. */
export interface DecodePollOptions {
  /** Verify message (and VSR batch) checksums; requires `initChecksums()`. Default false. */
  readonly verifyChecksums?: boolean;
}

/** Decodes a poll reply; the message count in the prefix must match what follows. */
export function decodePollMessagesResponse(payload: Uint8Array, protocol: IggyProtocol, options: DecodePollOptions = {}): PolledMessages {
  const r = new ByteReader(payload, 'PollMessages reply');
  const partitionId = r.u32('partitionId');
  const currentOffset = r.u64('currentOffset');
  const count = r.u32('count');
  const verify = options.verifyChecksums === true;
  const messages: PolledMessage[] = [];
  if (protocol === 'classic') {
    if (count > r.remaining / CLASSIC_MESSAGE_HEADER_SIZE) throw r.fail(`count ${count} cannot fit ${r.remaining} bytes`, 'count');
    for (let i = 0; i < count; i++) messages.push(readClassicMessage(r, verify));
    r.end();
    return { partitionId, currentOffset, messages };
  }
  while (r.remaining > 0) {
    const batch = decodeMessageBatch(payload, r.pos, { verifyChecksums: verify, strict: false });
    r.pos += batch.bytes.length;
    for (const m of batchToPolledMessages(batch)) messages.push(m);
    if (messages.length > count) break;
  }
  if (messages.length !== count) throw new IggyCodecError(`PollMessages reply: prefix count ${count}, records hold ${messages.length}`, { context: { count } });
  return { partitionId, currentOffset, messages };
}

function prefix(w: ByteWriter, partitionId: number, currentOffset: bigint, count: number): void {
  w.u32(checkU32(partitionId, 'partitionId')).u64(checkU64(currentOffset, 'currentOffset')).u32(checkU32(count, 'count'));
}

/** Encodes a VSR poll reply from stored batch records (already stamped). */
export function encodePollResponseVsr(partitionId: number, currentOffset: bigint, batches: readonly Uint8Array[]): Uint8Array {
  let count = 0;
  let size = 16;
  for (const b of batches) {
    count += decodeMessageBatch(b, 0, { strict: false }).header.messageCount;
    size += b.length;
  }
  const w = new ByteWriter(size);
  prefix(w, partitionId, currentOffset, count);
  for (const b of batches) w.bytes(b);
  return w.finish();
}

/**
 * Encodes a classic poll reply. Messages whose `checksum` is undefined get it computed over the
 * final bytes (requires `initChecksums()`).
 */
export function encodePollResponseClassic(partitionId: number, currentOffset: bigint, messages: readonly ClassicMessage[]): Uint8Array {
  let size = 16;
  for (const m of messages) size += classicMessageSize(m);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  const w = new ByteWriter(16);
  prefix(w, partitionId, currentOffset, messages.length);
  out.set(w.finish(), 0);
  let pos = 16;
  for (const m of messages) pos = writeClassicMessage(out, view, pos, m);
  return out;
}

/** The smallest poll reply: no messages. */
export function encodeEmptyPollResponse(partitionId: number, currentOffset: bigint): Uint8Array {
  const w = new ByteWriter(16);
  prefix(w, partitionId, currentOffset, 0);
  return w.finish().slice();
}
