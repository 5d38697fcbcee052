/**
 * The VSR (0.11) message batch: a 256-byte batch header then 48-byte-header frames
 * `[frame header][payload][user headers]`. The producer computes the XXH3-64 checksums: each frame
 * over its bytes 8..end, the batch over the six header fields (partition_id, base_offset,
 * base_timestamp, origin_timestamp, batch_length as u64 LE, message_count as u32 LE) followed by
 * every frame's 8-byte checksum in order.
 */

import { xxh3_64, xxh3_64RangeInto, xxh3_64RangeMatches } from '../checksums.js';
import type { BatchHasher } from '../internal/batch-hasher.js';
import { IggyCodecError, IggyIntegrityError, IggyInvalidError } from '../errors.js';
import { checkU128, checkU64 } from '../internal/checks.js';
import { batchHasher } from '../internal/batch-hasher.js';
import type { EncodeMessagesOptions, OutgoingMessage, PolledMessage } from './messages.js';
import { checkPayload, HeaderBlocks, nowMicros, writeMessageId, writeRandomMessageId } from './messages.js';

/** Size of the batch header. */
export const BATCH_HEADER_SIZE = 256;
/** Size of a frame header. */
export const FRAME_HEADER_SIZE = 48;

const U64 = 0xffff_ffff_ffff_ffffn;
/** The largest base a u32 delta cannot carry past u64. */
const U64_LESS_U32 = U64 - 0xffff_ffffn;

/** The decoded batch header. */
export interface BatchHeader {
  /** Stamped by the server (0 from producers). */
  readonly partitionId: bigint;
  /** Stamped by the server (0 from producers). */
  readonly baseOffset: bigint;
  /** Stamped by the server, µs (0 from producers). */
  readonly baseTimestamp: bigint;
  /** Minimum origin timestamp of the batch's messages, µs. */
  readonly originTimestamp: bigint;
  /** 256 + frame bytes. */
  readonly batchLength: bigint;
  /** The batch checksum. */
  readonly batchChecksum: bigint;
  /** Number of frames (≥ 1). */
  readonly messageCount: number;
}

/** One decoded frame. */
export interface BatchFrame {
  /** Frame checksum (XXH3-64 of frame bytes 8..end). */
  readonly checksum: bigint;
  /** The u128 id. */
  readonly id: bigint;
  /** Index within the batch (for server-sliced records it need not start at 0). */
  readonly offsetDelta: number;
  /** Origin timestamp minus the batch origin, µs. */
  readonly timestampDelta: number;
  /** The payload (a view). */
  readonly payload: Uint8Array;
  /** The user-header block (a view). */
  readonly rawHeaders: Uint8Array;
}

/** A decoded batch: header, frames and the exact bytes they came from. */
export interface MessageBatch {
  /** The batch header. */
  readonly header: BatchHeader;
  /** The frames in order. */
  readonly frames: readonly BatchFrame[];
  /** The batch bytes (a view of `batchLength` bytes). */
  readonly bytes: Uint8Array;
}

function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

// The batch checksum's input (six header fields, then every frame checksum) is assembled here
// while the frames are written; kept between calls unless a batch needs more than this.
const SCRATCH_KEEP = 64 * 1024;
let scratch = new Uint8Array(44 + 1024 * 8);

function checksumInput(bytes: number): Uint8Array {
  if (bytes <= scratch.length) return scratch;
  const fresh = new Uint8Array(bytes);
  if (bytes <= SCRATCH_KEEP) scratch = fresh;
  return fresh;
}

/**
 * The message count of `batch` (`messageCount`, else its header's), checked against its bytes: a
 * batch shorter than its header, or a count its bytes cannot hold (each frame takes at least its
 * header), is refused before anything is sized by the count.
 */
function checkedCount(batch: Uint8Array, view: DataView, messageCount: number | undefined): number {
  if (batch.length < BATCH_HEADER_SIZE) throw new IggyCodecError(`message batch: need ${BATCH_HEADER_SIZE} header bytes, have ${batch.length}`, { context: { have: batch.length } });
  const count = messageCount ?? view.getUint32(48, true);
  if (!Number.isInteger(count) || count < 0 || count > (batch.length - BATCH_HEADER_SIZE) / FRAME_HEADER_SIZE) {
    throw new IggyCodecError(`message batch: ${count} messages cannot fit ${batch.length - BATCH_HEADER_SIZE} bytes`, { context: { messageCount: count } });
  }
  return count;
}

/**
 * Computes the batch checksum of a batch (header plus frames) as it currently stands.
 * @throws IggyCodecError when the header or the `messageCount` frames do not fit `batch`
 * (checked before the checksum input is allocated).
 */
export function computeBatchChecksum(batch: Uint8Array, messageCount?: number): bigint {
  const view = viewOf(batch);
  const count = checkedCount(batch, view, messageCount);
  // The scratch the writer uses: a server verifies and re-stamps every batch it admits.
  const input = checksumInput(44 + count * 8);
  input.set(batch.subarray(0, 40), 0);
  input.set(batch.subarray(48, 52), 40);
  let pos = BATCH_HEADER_SIZE;
  // Eight byte moves rather than a subarray and a set per frame: a server runs this twice for
  // every batch it admits (verify, then re-stamp), and the per-frame view was most of its cost.
  // A frame that starts too near the end fails its length reads (which lie past its checksum), so
  // the loop checks nothing itself: the DataView's RangeError is turned into the codec error.
  try {
    for (let i = 0, to = 44; i < count; i++, to += 8) {
      for (let k = 0; k < 8; k++) input[to + k] = batch[pos + k] as number;
      pos += FRAME_HEADER_SIZE + view.getUint32(pos + 32, true) + view.getUint32(pos + 36, true);
    }
  } catch (cause) {
    throw new IggyCodecError(`message batch: a frame header at ${pos} runs past the batch's ${batch.length} bytes`, { cause, context: { offset: pos } });
  }
  return xxh3_64(input.subarray(0, 44 + count * 8));
}

/** A batch measured and checked, ready to be written (see {@link prepareMessageBatch}). */
export interface PreparedBatch {
  /** Bytes the batch takes: header plus frames. */
  readonly size: number;
  /** The messages, in order. */
  readonly messages: readonly OutgoingMessage[];
  /** Each message's user-header block; `undefined` when no message has one (the common case). */
  readonly blocks: readonly Uint8Array[] | undefined;
  /** Each message's origin timestamp (µs); `undefined` when every message takes `origin`. */
  readonly origins: readonly bigint[] | undefined;
  /** The batch origin: the minimum origin timestamp. */
  readonly origin: bigint;
  /** True when some message carries an id of its own (neither absent nor 0). */
  readonly ownIds: boolean;
}

const EMPTY = new Uint8Array(0);

/**
 * Measures a producer batch and resolves header blocks and origin timestamps. The per-message
 * arrays are only built when some message needs them, so a batch of bare payloads costs one
 * loop and no allocation here.
 */
export function prepareMessageBatch(messages: readonly OutgoingMessage[], options: EncodeMessagesOptions = {}): PreparedBatch {
  if (messages.length === 0) throw new IggyInvalidError('a batch needs at least one message', { context: { field: 'messages' } });
  if (messages.length > 0xffff_ffff) throw new IggyInvalidError('too many messages', { context: { field: 'messages' } });
  const n = messages.length;
  const headerBlocks = new HeaderBlocks(n);
  let origins: bigint[] | undefined;
  let size = BATCH_HEADER_SIZE;
  // The smallest explicit origin; messages without one share `clock`, compared once at the end
  // (a bigint comparison per message was a visible share of encoding a batch of bare payloads).
  let explicit = U64;
  let clock: bigint | undefined;
  let ownIds = false;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as OutgoingMessage;
    size += FRAME_HEADER_SIZE + checkPayload(m).length + headerBlocks.measure(m, i);
    if (m.id !== undefined && m.id !== 0n) ownIds = true;
    if (m.originTimestamp === undefined) {
      // Read and range-checked once per batch (as the classic path does): a clock answering a
      // negative, fractional, over-u64 or non-bigint value is refused, never wrapped by the DataView.
      clock ??= checkU64((options.nowMicros ?? nowMicros)(), 'originTimestamp');
      if (origins !== undefined) origins[i] = clock;
    } else {
      const o = checkU64(m.originTimestamp, 'originTimestamp');
      // Every earlier message took the clock (or there is none), so they share it.
      origins ??= new Array<bigint>(n).fill(clock ?? 0n);
      origins[i] = o;
      if (o < explicit) explicit = o;
    }
  }
  const origin = clock !== undefined && clock < explicit ? clock : explicit;
  return { size, messages, blocks: headerBlocks.list, origins, origin, ownIds };
}

/** The installed batch hasher when it takes a batch of `size` bytes. */
function hasherFor(size: number): BatchHasher | undefined {
  const hasher = batchHasher();
  return hasher !== undefined && size <= hasher.maxBytes ? hasher : undefined;
}

/**
 * Writes a prepared batch at `pos` of `out` with its checksums, in one pass over the messages.
 * Every header byte is written, so `out` need not be zeroed (pooled buffers are fine).
 */
export function writeMessageBatch(prepared: PreparedBatch, out: Uint8Array, pos: number, options: EncodeMessagesOptions = {}): void {
  const { messages, blocks, origins, origin, size, ownIds } = prepared;
  const n = messages.length;
  const newId = options.newId;
  const view = new DataView(out.buffer, out.byteOffset + pos, size);
  const batch = out.subarray(pos, pos + size);
  batch.fill(0, 0, BATCH_HEADER_SIZE);
  view.setBigUint64(24, origin, true);
  view.setBigUint64(32, BigInt(size), true);
  view.setUint32(48, n, true);
  const withChecksums = options.checksums !== false;
  // An installed batch hasher seals the whole batch after the loop; the loop then writes zeros.
  const fast = withChecksums ? hasherFor(size) : undefined;
  const hashHere = withChecksums && fast === undefined;
  const sums = hashHere ? checksumInput(44 + n * 8) : EMPTY;
  let at = BATCH_HEADER_SIZE;
  // The common batch (bare payloads, fresh ids, one clock reading, checksums sealed afterwards)
  // takes a loop with nothing to decide per message.
  if (blocks === undefined && origins === undefined && newId === undefined && !hashHere && !ownIds) {
    for (let i = 0; i < n; i++) {
      const payload = (messages[i] as OutgoingMessage).payload;
      view.setUint32(at, 0, true);
      view.setUint32(at + 4, 0, true);
      writeRandomMessageId(view, at + 8);
      view.setUint32(at + 24, i, true);
      view.setUint32(at + 28, 0, true);
      view.setUint32(at + 32, 0, true);
      view.setUint32(at + 36, payload.length, true);
      view.setUint32(at + 40, 0, true);
      view.setUint32(at + 44, 0, true);
      batch.set(payload, at + FRAME_HEADER_SIZE);
      at += FRAME_HEADER_SIZE + payload.length;
    }
    if (fast !== undefined) fast.seal(batch, n);
    return;
  }
  for (let i = 0; i < n; i++) {
    const m = messages[i] as OutgoingMessage;
    const payload = m.payload;
    const block = blocks === undefined ? EMPTY : (blocks[i] as Uint8Array);
    let delta = 0;
    if (origins !== undefined) {
      const d = (origins[i] as bigint) - origin;
      if (d > 0xffff_ffffn) throw new IggyInvalidError(`message ${i}: origin timestamp is ${d} µs after the batch origin, above u32`, { context: { field: 'originTimestamp', index: i } });
      delta = Number(d);
    }
    const id = m.id;
    if (id !== undefined && id !== 0n) writeMessageId(view, at + 8, checkU128(id, 'id'));
    else if (newId !== undefined) writeMessageId(view, at + 8, checkU128(newId(), 'id'));
    else writeRandomMessageId(view, at + 8);
    view.setUint32(at + 24, i, true);
    view.setUint32(at + 28, delta, true);
    view.setUint32(at + 32, block.length, true);
    view.setUint32(at + 36, payload.length, true);
    view.setUint32(at + 40, 0, true);
    view.setUint32(at + 44, 0, true);
    batch.set(payload, at + FRAME_HEADER_SIZE);
    if (block.length > 0) batch.set(block, at + FRAME_HEADER_SIZE + payload.length);
    const end = at + FRAME_HEADER_SIZE + payload.length + block.length;
    if (hashHere) {
      xxh3_64RangeInto(batch, at + 8, end, batch, at);
      for (let k = 0; k < 8; k++) sums[44 + i * 8 + k] = batch[at + k] as number;
    } else {
      // Two 32-bit stores: a bigint store is slower, and this runs once per message.
      view.setUint32(at, 0, true);
      view.setUint32(at + 4, 0, true);
    }
    at = end;
  }
  if (fast !== undefined) {
    fast.seal(batch, n);
  } else if (withChecksums) {
    sums.set(batch.subarray(0, 40), 0);
    sums.set(batch.subarray(48, 52), 40);
    xxh3_64RangeInto(sums, 0, 44 + n * 8, batch, 40);
  }
}

/**
 * Encodes a producer batch (server-owned fields 0) with its checksums. The origin timestamp of
 * the batch is the minimum over the messages; each delta must fit a u32 (about 71 minutes).
 */
export function encodeMessageBatch(messages: readonly OutgoingMessage[], options: EncodeMessagesOptions = {}): Uint8Array {
  const prepared = prepareMessageBatch(messages, options);
  const out = new Uint8Array(prepared.size);
  writeMessageBatch(prepared, out, 0, options);
  return out;
}

/** Options of {@link decodeMessageBatch}. */
export interface DecodeBatchOptions {
  /** Verify frame and batch checksums (requires `initChecksums()`); default false. */
  readonly verifyChecksums?: boolean;
  /** Require the producer shape: reserved bytes zero and message_count ≥ 1 (server admission). Default true. */
  readonly strict?: boolean;
}

/**
 * Checks one batch starting at `pos` of `bytes` without materialising its frames: header rules,
 * frame tiling, reserved bytes and (with `verifyChecksums`) every checksum. Returns the header.
 * A server admitting a batch it stores as bytes needs nothing more, so it pays no object per
 * message; {@link decodeMessageBatch} runs the same checks in the same order.
 */
function checkMessageBatch(bytes: Uint8Array, pos: number, options: DecodeBatchOptions): BatchHeader {
  const avail = bytes.length - pos;
  if (avail < BATCH_HEADER_SIZE) throw new IggyCodecError(`message batch: need ${BATCH_HEADER_SIZE} header bytes, have ${avail}`, { context: { offset: pos } });
  const view = new DataView(bytes.buffer, bytes.byteOffset + pos, avail);
  const batchLength = view.getBigUint64(32, true);
  if (batchLength < BigInt(BATCH_HEADER_SIZE) || batchLength > BigInt(avail)) {
    throw new IggyCodecError(`message batch: batch_length ${batchLength} outside ${BATCH_HEADER_SIZE}..${avail}`, { context: { offset: pos, batchLength: String(batchLength) } });
  }
  const length = Number(batchLength);
  const messageCount = view.getUint32(48, true);
  const strict = options.strict !== false;
  if (strict) {
    if (messageCount < 1) throw new IggyCodecError('message batch: message_count must be at least 1', { context: { offset: pos, iggyCode: 4009 } });
    // 204 reserved bytes, checked a word at a time.
    for (let i = 52; i < BATCH_HEADER_SIZE; i += 4) {
      if (view.getUint32(i, true) !== 0) throw new IggyCodecError('message batch: reserved header bytes must be zero', { context: { offset: pos + i } });
    }
  }
  // Each frame takes at least 48 bytes, which bounds the count before anything is allocated.
  if (messageCount > (length - BATCH_HEADER_SIZE) / FRAME_HEADER_SIZE) {
    throw new IggyCodecError(`message batch: ${messageCount} messages cannot fit ${length - BATCH_HEADER_SIZE} bytes`, { context: { offset: pos, messageCount } });
  }
  const header: BatchHeader = {
    partitionId: view.getBigUint64(0, true),
    baseOffset: view.getBigUint64(8, true),
    baseTimestamp: view.getBigUint64(16, true),
    originTimestamp: view.getBigUint64(24, true),
    batchLength,
    batchChecksum: view.getBigUint64(40, true),
    messageCount,
  };
  let at = BATCH_HEADER_SIZE;
  const verify = options.verifyChecksums === true;
  // An installed batch hasher verifies all frames in one call once the structure is known to be
  // sound, so the loop below only checks structure.
  const fast = verify ? hasherFor(length) : undefined;
  const hashHere = verify && fast === undefined;
  for (let i = 0; i < messageCount; i++) {
    if (length - at < FRAME_HEADER_SIZE) throw new IggyCodecError(`message batch: frame ${i} header is truncated`, { context: { offset: pos + at } });
    const end = at + FRAME_HEADER_SIZE + view.getUint32(at + 36, true) + view.getUint32(at + 32, true);
    if (end > length) throw new IggyCodecError(`message batch: frame ${i} overruns the batch`, { context: { offset: pos + at } });
    if (strict && (view.getUint32(at + 40, true) !== 0 || view.getUint32(at + 44, true) !== 0)) {
      throw new IggyCodecError(`message batch: frame ${i} reserved bytes must be zero`, { context: { offset: pos + at } });
    }
    if (hashHere && !xxh3_64RangeMatches(bytes, pos + at + 8, pos + end, bytes, pos + at)) {
      throw frameMismatch(i);
    }
    at = end;
  }
  if (at !== length) throw new IggyCodecError(`message batch: frames end at ${at}, batch_length is ${length}`, { context: { offset: pos, iggyCode: 4036 } });
  if (fast !== undefined) {
    const bad = fast.check(bytes.subarray(pos, pos + length), messageCount);
    if (bad === messageCount) throw batchMismatch();
    if (bad >= 0) throw frameMismatch(bad);
  } else if (verify && computeBatchChecksum(bytes.subarray(pos, pos + length), messageCount) !== header.batchChecksum) {
    throw batchMismatch();
  }
  return header;
}

function frameMismatch(index: number): IggyIntegrityError {
  return new IggyIntegrityError(`message batch: frame ${index} checksum mismatch`, { context: { index, iggyCode: 4027 } });
}

function batchMismatch(): IggyIntegrityError {
  return new IggyIntegrityError('message batch: batch checksum mismatch', { context: { iggyCode: 4039 } });
}

/** The frames of a batch that {@link checkMessageBatch} accepted (views into `batch`). */
function framesOf(batch: Uint8Array, messageCount: number): BatchFrame[] {
  const view = viewOf(batch);
  const frames: BatchFrame[] = new Array<BatchFrame>(messageCount);
  let at = BATCH_HEADER_SIZE;
  for (let i = 0; i < messageCount; i++) {
    const headersLength = view.getUint32(at + 32, true);
    const payloadLength = view.getUint32(at + 36, true);
    const payloadStart = at + FRAME_HEADER_SIZE;
    const end = payloadStart + payloadLength + headersLength;
    frames[i] = {
      checksum: view.getBigUint64(at, true),
      id: (view.getBigUint64(at + 16, true) << 64n) | view.getBigUint64(at + 8, true),
      offsetDelta: view.getUint32(at + 24, true),
      timestampDelta: view.getUint32(at + 28, true),
      payload: batch.subarray(payloadStart, payloadStart + payloadLength),
      rawHeaders: batch.subarray(payloadStart + payloadLength, end),
    };
    at = end;
  }
  return frames;
}

/**
 * Decodes one batch starting at `pos` of `bytes`; its `batch_length` must fit the bytes present
 * and its frames must tile it exactly. Mismatched checksums raise {@link IggyIntegrityError}
 * with `context.iggyCode` 4027 (frame) or 4039 (batch).
 */
export function decodeMessageBatch(bytes: Uint8Array, pos = 0, options: DecodeBatchOptions = {}): MessageBatch {
  const header = checkMessageBatch(bytes, pos, options);
  const batchBytes = bytes.subarray(pos, pos + Number(header.batchLength));
  return { header, frames: framesOf(batchBytes, header.messageCount), bytes: batchBytes };
}

/**
 * Like {@link decodeMessageBatch} (same checks, same errors), but the frames are only built
 * when first read: a server that stores the batch bytes never pays for them.
 */
export function decodeMessageBatchLazily(bytes: Uint8Array, pos = 0, options: DecodeBatchOptions = {}): MessageBatch {
  const header = checkMessageBatch(bytes, pos, options);
  const batchBytes = bytes.subarray(pos, pos + Number(header.batchLength));
  let frames: BatchFrame[] | undefined;
  return {
    header,
    bytes: batchBytes,
    get frames(): readonly BatchFrame[] {
      return (frames ??= framesOf(batchBytes, header.messageCount));
    },
  };
}

/** Server-owned fields a server stamps into an admitted batch. */
export interface BatchStamp {
  /** The partition the batch landed on. */
  readonly partitionId: number;
  /** The offset of its first message. */
  readonly baseOffset: bigint;
  /** The append time, µs. */
  readonly baseTimestamp: bigint;
}

/** Returns a copy of `batch` with the server fields stamped and the batch checksum recomputed. */
export function stampMessageBatch(batch: Uint8Array, stamp: BatchStamp): Uint8Array {
  if (batch.length < BATCH_HEADER_SIZE) throw new IggyInvalidError('batch is shorter than its header', { context: { field: 'batch' } });
  // Walk the frames first so a malformed batch fails typed instead of inside the checksum walk.
  const decoded = decodeMessageBatch(batch, 0, { strict: false });
  if (decoded.bytes.length !== batch.length) throw new IggyInvalidError('batch has trailing bytes', { context: { field: 'batch' } });
  const out = batch.slice();
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(stamp.partitionId), true);
  view.setBigUint64(8, checkU64(stamp.baseOffset, 'baseOffset'), true);
  view.setBigUint64(16, checkU64(stamp.baseTimestamp, 'baseTimestamp'), true);
  view.setBigUint64(40, computeBatchChecksum(out), true);
  return out;
}

/**
 * Expands a stored batch record into polled messages (offset = base + delta, flat timestamp).
 * @throws IggyCodecError when a base plus a frame's delta passes u64 (offset or origin timestamp):
 * a value no Iggy field can hold, which the consumer would otherwise try to commit.
 */
export function batchToPolledMessages(batch: MessageBatch): PolledMessage[] {
  const h = batch.header;
  const frames = batch.frames;
  // Deltas are u32, so only a base within 2^32 of u64::MAX can overflow: the frames are walked
  // for their largest deltas only then, and a poll pays two comparisons per batch otherwise.
  if (h.baseOffset > U64_LESS_U32 || h.originTimestamp > U64_LESS_U32) {
    let offsetDelta = 0;
    let timestampDelta = 0;
    for (const f of frames) {
      if (f.offsetDelta > offsetDelta) offsetDelta = f.offsetDelta;
      if (f.timestampDelta > timestampDelta) timestampDelta = f.timestampDelta;
    }
    if (h.baseOffset + BigInt(offsetDelta) > U64 || h.originTimestamp + BigInt(timestampDelta) > U64) {
      throw new IggyCodecError('message batch: base offset or origin timestamp plus a frame delta passes u64', {
        context: { baseOffset: String(h.baseOffset), offsetDelta, originTimestamp: String(h.originTimestamp), timestampDelta },
      });
    }
  }
  return frames.map((f) => ({
    offset: h.baseOffset + BigInt(f.offsetDelta),
    timestamp: h.baseTimestamp,
    originTimestamp: h.originTimestamp + BigInt(f.timestampDelta),
    id: f.id,
    checksum: f.checksum,
    payload: f.payload,
    rawHeaders: f.rawHeaders,
  }));
}

/**
 * A server-sliced view of a stored batch: frames `start .. start + count` of `batch`, with
 * batch_length, message_count and the batch checksum rewritten and base_offset, base_timestamp,
 * origin_timestamp and every frame (original offset_delta included) kept, as Iggy serves a
 * partial record in a poll reply.
 */
export function sliceMessageBatch(batch: Uint8Array, start: number, count: number): Uint8Array {
  const decoded = decodeMessageBatch(batch, 0, { strict: false });
  const n = decoded.header.messageCount;
  if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 1 || start + count > n) {
    throw new IggyInvalidError(`slice ${start}+${count} is outside the batch's ${n} messages`, { context: { field: 'start' } });
  }
  const offsets: number[] = [];
  let pos = BATCH_HEADER_SIZE;
  const view = viewOf(decoded.bytes);
  for (let i = 0; i <= n; i++) {
    offsets.push(pos);
    if (i < n) pos += FRAME_HEADER_SIZE + view.getUint32(pos + 32, true) + view.getUint32(pos + 36, true);
  }
  const from = offsets[start] as number;
  const to = offsets[start + count] as number;
  const out = new Uint8Array(BATCH_HEADER_SIZE + (to - from));
  out.set(decoded.bytes.subarray(0, BATCH_HEADER_SIZE), 0);
  out.set(decoded.bytes.subarray(from, to), BATCH_HEADER_SIZE);
  const outView = new DataView(out.buffer);
  outView.setBigUint64(32, BigInt(out.length), true);
  outView.setUint32(48, count, true);
  outView.setBigUint64(40, computeBatchChecksum(out, count), true);
  return out;
}
