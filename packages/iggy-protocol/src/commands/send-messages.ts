/**
 * SendMessages (101). The body starts with the routing section
 * `[metadata_len u32][stream][topic][Partitioning][messages_count u32]` (metadata_len counts the
 * four fields after it). Classic then carries a 16-byte index entry per message and the 64-byte
 * message format; VSR carries one canonical batch.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU128, checkU32, checkU64 } from '../internal/checks.js';
import type { IggyProtocol } from '../protocol.js';
import { CLASSIC_MESSAGE_HEADER_SIZE, indexError, readClassicMessage } from './classic-messages.js';
import type { MessageBatch } from './message-batch.js';
import { batchToPolledMessages, decodeMessageBatchLazily, prepareMessageBatch, writeMessageBatch } from './message-batch.js';
import type { EncodeMessagesOptions, OutgoingMessage, PolledMessage } from './messages.js';
import { checkPayload, HeaderBlocks, nowMicros, writeMessageId, writeRandomMessageId } from './messages.js';
import type { Identifier, Partitioning } from './primitives.js';
import { identifierSize, partitioningSize, readIdentifier, readPartitioning, writeIdentifierAt, writePartitioningAt } from './primitives.js';

/** SendMessages request. */
export interface SendMessagesRequest {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** Balanced, explicit partition, or messages key. */
  readonly partitioning: Partitioning;
  /** At least one message. */
  readonly messages: readonly OutgoingMessage[];
}

/** Bytes of the routing section, metadata_len prefix included. */
function routingSize(req: SendMessagesRequest): number {
  return 4 + identifierSize(req.stream, 'stream') + identifierSize(req.topic, 'topic') + partitioningSize(req.partitioning) + 4;
}

/** Writes the routing section at 0 and returns its end. */
function writeRouting(out: Uint8Array, view: DataView, req: SendMessagesRequest, count: number): number {
  let pos = writeIdentifierAt(out, view, 4, req.stream, 'stream');
  pos = writeIdentifierAt(out, view, pos, req.topic, 'topic');
  pos = writePartitioningAt(out, view, pos, req.partitioning);
  view.setUint32(pos, count, true);
  view.setUint32(0, pos, true);
  return pos + 4;
}

/**
 * Encodes a SendMessages body into one exactly sized buffer. VSR computes the checksums (run
 * `initChecksums()` first unless `options.checksums` is false); classic leaves them to the server.
 */
export function encodeSendMessagesRequest(req: SendMessagesRequest, protocol: IggyProtocol, options: EncodeMessagesOptions = {}): Uint8Array {
  const n = req.messages.length;
  if (n === 0) throw new IggyInvalidError('SendMessages needs at least one message', { context: { field: 'messages' } });
  checkU32(n, 'messages.length');
  const routing = routingSize(req);
  if (protocol === 'vsr') {
    const prepared = prepareMessageBatch(req.messages, options);
    const size = routing + prepared.size;
    const out = bodyBuffer(size, options);
    writeRouting(out, new DataView(out.buffer, out.byteOffset, size), req, n);
    writeMessageBatch(prepared, out, routing, options);
    return out;
  }
  return encodeClassicMessages(req, routing, options);
}

const EMPTY = new Uint8Array(0);

/**
 * The `size` bytes a body is written to: behind `options.headroom` free bytes, in a buffer from
 * `options.allocate` (contents undefined: the encoders write every byte) or a fresh one.
 */
function bodyBuffer(size: number, options: EncodeMessagesOptions): Uint8Array {
  const headroom = options.headroom ?? 0;
  if (!Number.isSafeInteger(headroom) || headroom < 0) throw new IggyInvalidError('headroom must be a non-negative integer', { context: { field: 'headroom' } });
  // A frame's size is a u32 in both generations: refuse a larger body before allocating for it.
  checkU32(headroom + size, 'body size');
  const buffer = options.allocate === undefined ? new Uint8Array(headroom + size) : options.allocate(headroom + size);
  if (!(buffer instanceof Uint8Array) || buffer.length < headroom + size) throw new IggyInvalidError(`allocate gave fewer than ${headroom + size} bytes`, { context: { field: 'allocate' } });
  return buffer.subarray(headroom, headroom + size);
}

/**
 * The classic body: routing, a 16-byte index entry per message, then the 64-byte-header
 * messages. One pass measures and checks every message (nothing is allocated for a bare
 * payload), a second writes index and messages straight into the body.
 */
function encodeClassicMessages(req: SendMessagesRequest, routing: number, options: EncodeMessagesOptions): Uint8Array {
  const messages = req.messages;
  const n = messages.length;
  const headerBlocks = new HeaderBlocks(n);
  let clock: bigint | undefined;
  let size = routing + n * 16;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as OutgoingMessage;
    size += CLASSIC_MESSAGE_HEADER_SIZE + checkPayload(m).length + headerBlocks.measure(m, i);
    if (m.originTimestamp === undefined) clock ??= checkU64((options.nowMicros ?? nowMicros)(), 'originTimestamp');
    else checkU64(m.originTimestamp, 'originTimestamp');
    if (m.id !== undefined) checkU128(m.id, 'id');
  }
  checkU32(size, 'body size');
  const out = bodyBuffer(size, options);
  const view = new DataView(out.buffer, out.byteOffset, size);
  writeRouting(out, view, req, n);
  const randomIds = options.classicIds === 'random';
  const blocks = headerBlocks.list;
  // The clock as two u32 halves, split once: a bigint store per message cost about as much as
  // the rest of the header's stores together.
  const clockLow = clock === undefined ? 0 : Number(clock & 0xffff_ffffn);
  const clockHigh = clock === undefined ? 0 : Number(clock >> 32n);
  let idx = routing;
  let pos = routing + n * 16;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as OutgoingMessage;
    const payload = m.payload;
    const block = blocks === undefined ? EMPTY : (blocks[i] as Uint8Array);
    const id = m.id;
    // Every header field is written, the zeros a producer leaves too (checksum, offset,
    // timestamp, reserved), so a reused buffer needs no clearing.
    view.setUint32(pos, 0, true);
    view.setUint32(pos + 4, 0, true);
    if (id !== undefined && id !== 0n) writeMessageId(view, pos + 8, id);
    else if (randomIds) writeRandomMessageId(view, pos + 8);
    else writeMessageId(view, pos + 8, 0n);
    view.setUint32(pos + 24, 0, true);
    view.setUint32(pos + 28, 0, true);
    view.setUint32(pos + 32, 0, true);
    view.setUint32(pos + 36, 0, true);
    const origin = m.originTimestamp;
    if (origin === undefined) {
      view.setUint32(pos + 40, clockLow, true);
      view.setUint32(pos + 44, clockHigh, true);
    } else view.setBigUint64(pos + 40, origin, true);
    view.setUint32(pos + 48, block.length, true);
    view.setUint32(pos + 52, payload.length, true);
    view.setUint32(pos + 56, 0, true);
    view.setUint32(pos + 60, 0, true);
    out.set(payload, pos + CLASSIC_MESSAGE_HEADER_SIZE);
    if (block.length > 0) out.set(block, pos + CLASSIC_MESSAGE_HEADER_SIZE + payload.length);
    pos += CLASSIC_MESSAGE_HEADER_SIZE + payload.length + block.length;
    // The index entry: [offset u32 = 0][end of this message, from the first message, u32][timestamp u64 = 0].
    view.setUint32(idx, 0, true);
    view.setUint32(idx + 4, pos - routing - n * 16, true);
    view.setUint32(idx + 8, 0, true);
    view.setUint32(idx + 12, 0, true);
    idx += 16;
  }
  return out;
}

/** A decoded SendMessages body (server side). */
export interface DecodedSendMessages {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partitioning. */
  readonly partitioning: Partitioning;
  /** The messages, with producer-side fields (offset and timestamp are whatever was sent). */
  readonly messages: readonly PolledMessage[];
  /** VSR only: the batch, to verify, stamp and store unchanged. */
  readonly batch?: MessageBatch;
}

/** Options of {@link decodeSendMessagesRequest}. */
export interface DecodeSendMessagesOptions {
  /** VSR: verify frame and batch checksums (requires `initChecksums()`); default false. */
  readonly verifyChecksums?: boolean;
}

/**
 * Decodes a SendMessages body with the server's admission rules: metadata_len must match,
 * counts must agree and be ≥ 1, the messages must end exactly at the end of the body. Codec
 * errors carry `context.iggyCode` when Iggy has a dedicated status for the rule.
 */
export function decodeSendMessagesRequest(payload: Uint8Array, protocol: IggyProtocol, options: DecodeSendMessagesOptions = {}): DecodedSendMessages {
  const r = new ByteReader(payload, 'SendMessages');
  const metadataLength = r.u32('metadataLength');
  const start = r.pos;
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const partitioning = readPartitioning(r);
  const count = r.u32('messagesCount');
  if (r.pos - start !== metadataLength) throw r.fail(`metadata_len ${metadataLength} does not match ${r.pos - start} bytes`, 'metadataLength');
  if (count < 1) throw new IggyCodecError('SendMessages: messages_count must be at least 1', { context: { iggyCode: 4009 } });
  if (protocol === 'vsr') {
    // A server stores the batch bytes and never reads the per-message views, so frames and
    // messages are only built when first read.
    const batch = decodeMessageBatchLazily(payload, r.pos, { verifyChecksums: options.verifyChecksums === true });
    if (batch.header.messageCount !== count) throw new IggyCodecError(`SendMessages: messages_count ${count} differs from the batch's ${batch.header.messageCount}`, { context: { iggyCode: 4009 } });
    if (r.pos + batch.bytes.length !== payload.length) throw new IggyCodecError('SendMessages: bytes after the batch', { context: { iggyCode: 4036 } });
    let messages: PolledMessage[] | undefined;
    return {
      stream,
      topic,
      partitioning,
      batch,
      get messages(): readonly PolledMessage[] {
        return (messages ??= batchToPolledMessages(batch));
      },
    };
  }
  r.need(count * 16, 'index');
  const indexStart = r.pos;
  const dataStart = indexStart + count * 16;
  // Each message takes at least its 64-byte header, which bounds the count before allocating.
  if (count > (payload.length - dataStart) / CLASSIC_MESSAGE_HEADER_SIZE) throw indexError(`${count} messages cannot fit the body`, 4036);
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const data = new ByteReader(payload, 'SendMessages', dataStart);
  const messages: PolledMessage[] = [];
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const at = indexStart + i * 16;
    if (view.getUint32(at, true) !== 0) throw indexError(`entry ${i} has a non-zero offset`, 4031);
    if (view.getBigUint64(at + 8, true) !== 0n) throw indexError(`entry ${i} has a non-zero timestamp`, 4032);
    const position = view.getUint32(at + 4, true);
    const m = readClassicMessage(data, false);
    if (position !== data.pos - dataStart || position <= previous) throw indexError(`entry ${i} position ${position} does not match the message end ${data.pos - dataStart}`, 4033);
    previous = position;
    messages.push(m);
  }
  data.end();
  return { stream, topic, partitioning, messages };
}

/** One VSR SendMessages confirmation. */
export interface SendConfirmation {
  /** Stream id. */
  readonly streamId: number;
  /** Topic id. */
  readonly topicId: number;
  /** The partition the batch landed on. */
  readonly partitionId: number;
  /** The offset of the batch's first message. */
  readonly baseOffset: bigint;
}

/** Encodes the VSR SendMessages reply `[count u32]` then 20-byte confirmations (classic replies are empty). */
export function encodeSendMessagesResponse(confirmations: readonly SendConfirmation[]): Uint8Array {
  const w = new ByteWriter(4 + confirmations.length * 20);
  w.u32(checkU32(confirmations.length, 'count'));
  for (const c of confirmations) {
    w.u32(checkU32(c.streamId, 'streamId')).u32(checkU32(c.topicId, 'topicId')).u32(checkU32(c.partitionId, 'partitionId')).u64(checkU64(c.baseOffset, 'baseOffset'));
  }
  return w.finish().slice();
}

/** Decodes the VSR SendMessages reply. */
export function decodeSendMessagesResponse(payload: Uint8Array): SendConfirmation[] {
  const r = new ByteReader(payload, 'SendMessages reply');
  const count = r.u32('count');
  if (count * 20 !== r.remaining) throw r.fail(`count ${count} does not match ${r.remaining} bytes`, 'count');
  const out: SendConfirmation[] = [];
  for (let i = 0; i < count; i++) out.push({ streamId: r.u32('streamId'), topicId: r.u32('topicId'), partitionId: r.u32('partitionId'), baseOffset: r.u64('baseOffset') });
  return out;
}
