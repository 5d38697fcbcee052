/** The message model shared by the send and poll codecs of both protocols. */

import { IggyInvalidError } from '../errors.js';
import type { HeaderValue } from './user-headers.js';
import { encodeUserHeaders } from './user-headers.js';

/** A message to send. */
export interface OutgoingMessage {
  /**
   * The u128 message id. 0 or absent: classic lets the server generate one; VSR mints a random
   * UUID v4 here, because the id is covered by the frame checksum and the server cannot fill it.
   */
  readonly id?: bigint;
  /** The payload. */
  readonly payload: Uint8Array;
  /** Typed user headers (string keys). */
  readonly headers?: ReadonlyMap<string, HeaderValue>;
  /** A pre-encoded user-header block, sent as is instead of `headers` (the server treats it as opaque). */
  readonly rawHeaders?: Uint8Array;
  /** The producer's clock in µs since the epoch (default: now). */
  readonly originTimestamp?: bigint;
}

/** A message read back from a poll, with the server-assigned fields. */
export interface PolledMessage {
  /** Absolute partition offset. */
  readonly offset: bigint;
  /** Append time, µs (one value per stored batch). */
  readonly timestamp: bigint;
  /** The producer's origin timestamp, µs. */
  readonly originTimestamp: bigint;
  /** The u128 message id. */
  readonly id: bigint;
  /** The message checksum as stored (XXH3-64). */
  readonly checksum: bigint;
  /** The payload (a view into the decoded buffer). */
  readonly payload: Uint8Array;
  /** The user-header block (a view; decode it with `decodeUserHeaders`). */
  readonly rawHeaders: Uint8Array;
}

/** Options of the message encoders. */
export interface EncodeMessagesOptions {
  /** The clock for absent origin timestamps, in µs (default `Date.now() * 1000`); read once per batch, and a reading that is not a u64 bigint is refused with IggyInvalidError. */
  readonly nowMicros?: () => bigint;
  /** The id generator for VSR messages without an id (default: random UUID v4 as a u128). */
  readonly newId?: () => bigint;
  /**
   * Classic only: who gives a message without an id (absent or 0) its id. `'server'` (default)
   * sends 0 and the server mints one; `'random'` writes a random UUID v4 here, as VSR always
   * does. A classic server mints ids one message at a time, slowly, so a producer sending large
   * batches wants `'random'`.
   */
  readonly classicIds?: 'server' | 'random';
  /**
   * VSR only: compute the frame and batch checksums (default true). `false` leaves them zero,
   * which a server rejects; it exists to measure the checksum cost separately.
   */
  readonly checksums?: boolean;
  /**
   * `encodeSendMessagesRequest` only: bytes left free before the body in the buffer it is written
   * to (default 0), so a client can write the request header there instead of copying the body
   * into a new frame (see `VsrClientSession.command` and `ClassicClientSession.command`). The
   * body is returned as a view.
   */
  readonly headroom?: number;
  /**
   * `encodeSendMessagesRequest` only: gives the buffer the body is written to, at least `bytes`
   * long (default a fresh `Uint8Array`), so a caller can reuse buffers instead of allocating a
   * large one per send. Every byte of the body is written; the headroom is left as it is.
   */
  readonly allocate?: (bytes: number) => Uint8Array;
}

/** Largest payload the servers accept. */
export const MAX_PAYLOAD_SIZE = 64_000_000;

const EMPTY = new Uint8Array(0);

/** Resolves a message's user-header block. */
export function headerBlockOf(m: OutgoingMessage): Uint8Array {
  if (m.rawHeaders !== undefined) {
    if (m.headers !== undefined) throw new IggyInvalidError('give either headers or rawHeaders, not both', { context: { field: 'headers' } });
    return m.rawHeaders;
  }
  return m.headers === undefined || m.headers.size === 0 ? EMPTY : encodeUserHeaders(m.headers);
}

/**
 * The user-header blocks of a batch being measured. Most batches have none, so the per-message
 * list is only built at the first message that has a non-empty block.
 */
export class HeaderBlocks {
  /** Each message's block (empty where it has none); `undefined` while no message has one. */
  list: Uint8Array[] | undefined;
  readonly #count: number;

  /** For a batch of `count` messages. */
  constructor(count: number) {
    this.#count = count;
  }

  /** Resolves message `i`'s block, keeps it when non-empty, and returns its length. */
  measure(m: OutgoingMessage, i: number): number {
    if (m.headers === undefined && m.rawHeaders === undefined) return 0;
    const block = headerBlockOf(m);
    if (block.length === 0) return 0;
    (this.list ??= new Array<Uint8Array>(this.#count).fill(EMPTY))[i] = block;
    return block.length;
  }
}

/** Checks a payload is a Uint8Array within the server's size limit. */
export function checkPayload(m: OutgoingMessage): Uint8Array {
  if (!(m.payload instanceof Uint8Array)) throw new IggyInvalidError('payload must be a Uint8Array', { context: { field: 'payload' } });
  if (m.payload.length > MAX_PAYLOAD_SIZE) throw new IggyInvalidError(`payload of ${m.payload.length} bytes exceeds ${MAX_PAYLOAD_SIZE}`, { context: { field: 'payload' } });
  return m.payload;
}

/** The current time in µs. */
export function nowMicros(): bigint {
  return BigInt(Date.now()) * 1000n;
}

// 4,096 ids: 64 KiB, the most one getRandomValues call may fill. Per id, one 64 KiB call cost
// about half of four 16 KiB calls here (3.0-3.5 against 6.4-8.8 µs per 16 KiB).
const ID_POOL_IDS = 4096;
const idPool = new Uint8Array(ID_POOL_IDS * 16);
const idPoolView = new DataView(idPool.buffer);
let idPoolPos = ID_POOL_IDS;

/**
 * Refills the id pool. The pool holds each id as its 16 little-endian wire bytes, so wire byte
 * 15 - k is UUID byte k: the version (4, UUID byte 6) goes into byte 9 and the variant (10xx,
 * UUID byte 8) into byte 7 here, once per refill, and the send path copies an id without
 * touching single bytes.
 */
function refillIdPool(): void {
  // One getRandomValues call per 4,096 ids (see ID_POOL_IDS): the call, not the bits, dominates
  // the cost of small fills.
  globalThis.crypto.getRandomValues(idPool);
  for (let at = 0; at < idPool.length; at += 16) {
    idPool[at + 9] = ((idPool[at + 9] as number) & 0x0f) | 0x40;
    idPool[at + 7] = ((idPool[at + 7] as number) & 0x3f) | 0x80;
  }
  idPoolPos = 0;
}

/** A random UUID v4 as a u128 (its numeric value, which travels little-endian). */
export function randomMessageId(): bigint {
  if (idPoolPos >= ID_POOL_IDS) refillIdPool();
  const at = idPoolPos * 16;
  idPoolPos += 1;
  return (idPoolView.getBigUint64(at + 8, true) << 64n) | idPoolView.getBigUint64(at, true);
}

const U64 = 0xffff_ffff_ffff_ffffn;

/** Writes a checked u128 id little-endian at `at` of `view` (both halves, so the target need not be zeroed). */
export function writeMessageId(view: DataView, at: number, id: bigint): void {
  if (id > U64) {
    view.setBigUint64(at, id & U64, true);
    view.setBigUint64(at + 8, id >> 64n, true);
  } else {
    view.setBigUint64(at, id, true);
    view.setBigUint64(at + 8, 0n, true);
  }
}

/**
 * Writes a fresh random UUID v4 id as its 16 little-endian wire bytes at `at` of `view` (a view
 * of the whole output), without building a bigint: the send path mints one per message. The pool
 * keeps ids in wire order with version and variant already set (see `refillIdPool`), so this
 * is four 32-bit moves.
 */
export function writeRandomMessageId(view: DataView, at: number): void {
  if (idPoolPos >= ID_POOL_IDS) refillIdPool();
  const from = idPoolPos * 16;
  idPoolPos += 1;
  view.setUint32(at, idPoolView.getUint32(from, true), true);
  view.setUint32(at + 4, idPoolView.getUint32(from + 4, true), true);
  view.setUint32(at + 8, idPoolView.getUint32(from + 8, true), true);
  view.setUint32(at + 12, idPoolView.getUint32(from + 12, true), true);
}
