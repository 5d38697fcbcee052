/**
 * Consumer offset commands: StoreConsumerOffset (121), GetConsumerOffset (120),
 * DeleteConsumerOffset (122). VSR adds a trailing `ack` byte to store and delete, and under VSR
 * both need an explicit partition (the server answers status 20 otherwise).
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, checkU64 } from '../internal/checks.js';
import type { IggyProtocol } from '../protocol.js';
import type { Consumer, Identifier } from './primitives.js';
import { readConsumer, readIdentifier, readOptionalPartition, writeConsumer, writeIdentifier, writeOptionalPartition } from './primitives.js';

/** Where an offset lives: consumer, stream, topic and (optional) partition. */
export interface ConsumerOffsetTarget {
  /** The consumer or group. */
  readonly consumer: Consumer;
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partition; absent means partition 0 on get, and is refused by VSR store/delete. */
  readonly partitionId?: number;
}

/** VSR acknowledgement level of store/delete: 0 = leader-local, 1 = quorum (default). */
export type OffsetAck = 'none' | 'quorum';

/** StoreConsumerOffset request. */
export interface StoreConsumerOffsetRequest extends ConsumerOffsetTarget {
  /** The last consumed offset. */
  readonly offset: bigint;
  /** VSR only (default `quorum`). */
  readonly ack?: OffsetAck;
}

/** DeleteConsumerOffset request. */
export interface DeleteConsumerOffsetRequest extends ConsumerOffsetTarget {
  /** VSR only (default `quorum`). */
  readonly ack?: OffsetAck;
}

function writeTarget(w: ByteWriter, t: ConsumerOffsetTarget): void {
  writeConsumer(w, t.consumer);
  writeIdentifier(w, t.stream, 'stream');
  writeIdentifier(w, t.topic, 'topic');
  writeOptionalPartition(w, t.partitionId);
}

function readTarget(r: ByteReader): ConsumerOffsetTarget {
  const consumer = readConsumer(r);
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const partitionId = readOptionalPartition(r);
  return partitionId === undefined ? { consumer, stream, topic } : { consumer, stream, topic, partitionId };
}

function readAck(r: ByteReader): OffsetAck {
  const b = r.u8('ack');
  if (b > 1) throw r.fail(`ack must be 0 or 1, got ${b}`, 'ack');
  return b === 1 ? 'quorum' : 'none';
}

/** Encodes StoreConsumerOffset: target, `[offset u64]`, and in VSR `[ack u8]`. */
export function encodeStoreConsumerOffsetRequest(req: StoreConsumerOffsetRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(48);
  writeTarget(w, req);
  w.u64(checkU64(req.offset, 'offset'));
  if (protocol === 'vsr') w.u8(req.ack === 'none' ? 0 : 1);
  return w.finish().slice();
}

/** Decodes StoreConsumerOffset (server side). */
export function decodeStoreConsumerOffsetRequest(payload: Uint8Array, protocol: IggyProtocol): StoreConsumerOffsetRequest {
  const r = new ByteReader(payload, 'StoreConsumerOffset');
  const target = readTarget(r);
  const offset = r.u64('offset');
  const req: StoreConsumerOffsetRequest = protocol === 'vsr' ? { ...target, offset, ack: readAck(r) } : { ...target, offset };
  r.end();
  return req;
}

/** Encodes GetConsumerOffset: the target only (same in both protocols). */
export function encodeGetConsumerOffsetRequest(req: ConsumerOffsetTarget): Uint8Array {
  const w = new ByteWriter(48);
  writeTarget(w, req);
  return w.finish().slice();
}

/** Decodes GetConsumerOffset (server side). */
export function decodeGetConsumerOffsetRequest(payload: Uint8Array): ConsumerOffsetTarget {
  const r = new ByteReader(payload, 'GetConsumerOffset');
  const t = readTarget(r);
  r.end();
  return t;
}

/** Encodes DeleteConsumerOffset: the target, and in VSR `[ack u8]`. */
export function encodeDeleteConsumerOffsetRequest(req: DeleteConsumerOffsetRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(48);
  writeTarget(w, req);
  if (protocol === 'vsr') w.u8(req.ack === 'none' ? 0 : 1);
  return w.finish().slice();
}

/** Decodes DeleteConsumerOffset (server side). */
export function decodeDeleteConsumerOffsetRequest(payload: Uint8Array, protocol: IggyProtocol): DeleteConsumerOffsetRequest {
  const r = new ByteReader(payload, 'DeleteConsumerOffset');
  const target = readTarget(r);
  const req: DeleteConsumerOffsetRequest = protocol === 'vsr' ? { ...target, ack: readAck(r) } : target;
  r.end();
  return req;
}

/** GetConsumerOffset reply. */
export interface ConsumerOffsetInfo {
  /** The partition. */
  readonly partitionId: number;
  /** The partition's highest offset. */
  readonly currentOffset: bigint;
  /** The stored (last consumed) offset. */
  readonly storedOffset: bigint;
}

/** Encodes `[partition u32][current u64][stored u64]`; `undefined` → empty (nothing stored). */
export function encodeConsumerOffsetInfo(info: ConsumerOffsetInfo | undefined): Uint8Array {
  if (info === undefined) return new Uint8Array(0);
  const w = new ByteWriter(20);
  w.u32(checkU32(info.partitionId, 'partitionId')).u64(checkU64(info.currentOffset, 'currentOffset')).u64(checkU64(info.storedOffset, 'storedOffset'));
  return w.finish().slice();
}

/** Decodes a GetConsumerOffset reply; an empty payload means no offset is stored. */
export function decodeConsumerOffsetInfo(payload: Uint8Array): ConsumerOffsetInfo | undefined {
  if (payload.length === 0) return undefined;
  const r = new ByteReader(payload, 'GetConsumerOffset reply');
  const info = { partitionId: r.u32('partitionId'), currentOffset: r.u64('currentOffset'), storedOffset: r.u64('storedOffset') };
  r.end();
  return info;
}
