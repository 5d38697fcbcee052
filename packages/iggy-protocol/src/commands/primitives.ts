/**
 * Wire primitives shared by both protocol generations (sheet §2.1): Identifier, Consumer,
 * Partitioning, PollingStrategy and the optional partition.
 */

import { IggyInvalidError } from '../errors.js';
import type { ByteReader } from '../internal/byte-reader.js';
import { decodeUtf8 } from '../internal/byte-reader.js';
import type { ByteWriter } from '../internal/byte-writer.js';
import { encodeUtf8 } from '../internal/byte-writer.js';
import { checkU32, checkU64, wireNameBytes } from '../internal/checks.js';

/**
 * A stream, topic, group or consumer identifier: a number is a numeric id (u32, kind 1), a
 * string is a name (1..255 UTF-8 bytes, kind 2).
 */
export type Identifier = number | string;

/** Writes `[kind u8][len u8][value]`. */
export function writeIdentifier(w: ByteWriter, id: Identifier, field: string): void {
  if (typeof id === 'number') {
    w.u8(1).u8(4).u32(checkU32(id, field));
  } else {
    const b = wireNameBytes(id, field, true);
    w.u8(2).u8(b.length).bytes(b);
  }
}

/** Bytes an Identifier takes on the wire. */
export function identifierSize(id: Identifier, field: string): number {
  return typeof id === 'number' ? 6 : 2 + wireNameBytes(id, field, true).length;
}

/** Writes an Identifier at `pos` and returns the position after it. */
export function writeIdentifierAt(out: Uint8Array, view: DataView, pos: number, id: Identifier, field: string): number {
  if (typeof id === 'number') {
    out[pos] = 1;
    out[pos + 1] = 4;
    view.setUint32(pos + 2, checkU32(id, field), true);
    return pos + 6;
  }
  const b = wireNameBytes(id, field, true);
  out[pos] = 2;
  out[pos + 1] = b.length;
  out.set(b, pos + 2);
  return pos + 2 + b.length;
}

/** Reads an Identifier; numeric ids must have length 4, names 1..255 valid UTF-8 bytes. */
export function readIdentifier(r: ByteReader, field: string): Identifier {
  const kind = r.u8(`${field}.kind`);
  const len = r.u8(`${field}.length`);
  // The value is read before the kind is judged, as Iggy does, so a short body is a truncation.
  const value = r.bytesView(len, field);
  if (kind === 1) {
    if (len !== 4) throw r.invalid(`${field}: numeric identifier must have length 4, got ${len}`, field);
    // The four value bytes, little-endian.
    return ((value[0] ?? 0) | ((value[1] ?? 0) << 8) | ((value[2] ?? 0) << 16) | ((value[3] ?? 0) << 24)) >>> 0;
  }
  if (kind === 2) {
    if (len === 0) throw r.invalid(`${field}: string identifier must not be empty`, field);
    return decodeUtf8(value, field);
  }
  throw r.fail(`${field}: unknown identifier kind ${kind}`, field);
}

/** Who polls or owns an offset: a single consumer or a consumer group. */
export interface Consumer {
  /** `consumer` (kind 1) or `group` (kind 2). */
  readonly kind: 'consumer' | 'group';
  /** The consumer's or group's identifier. */
  readonly id: Identifier;
}

/** Writes `[kind u8][Identifier]`. */
export function writeConsumer(w: ByteWriter, c: Consumer): void {
  if (c.kind !== 'consumer' && c.kind !== 'group') throw new IggyInvalidError(`consumer kind must be consumer or group`, { context: { field: 'consumer.kind' } });
  w.u8(c.kind === 'consumer' ? 1 : 2);
  writeIdentifier(w, c.id, 'consumer.id');
}

/** Reads a Consumer. */
export function readConsumer(r: ByteReader): Consumer {
  const kind = r.u8('consumer.kind');
  if (kind !== 1 && kind !== 2) throw r.fail(`unknown consumer kind ${kind}`, 'consumer.kind');
  return { kind: kind === 1 ? 'consumer' : 'group', id: readIdentifier(r, 'consumer.id') };
}

/** How SendMessages picks the partition. */
export type Partitioning =
  | { readonly kind: 'balanced' }
  | { readonly kind: 'partition'; readonly partitionId: number }
  | { readonly kind: 'key'; readonly key: Uint8Array };

/** Bytes a Partitioning takes on the wire. */
export function partitioningSize(p: Partitioning): number {
  return p.kind === 'key' && p.key instanceof Uint8Array ? 2 + p.key.length : p.kind === 'partition' ? 6 : 2;
}

/** Writes a Partitioning `[kind u8][len u8][value]` at `pos` and returns the position after it. */
export function writePartitioningAt(out: Uint8Array, view: DataView, pos: number, p: Partitioning): number {
  switch (p.kind) {
    case 'balanced':
      out[pos] = 1;
      out[pos + 1] = 0;
      return pos + 2;
    case 'partition':
      out[pos] = 2;
      out[pos + 1] = 4;
      view.setUint32(pos + 2, checkU32(p.partitionId, 'partitioning.partitionId'), true);
      return pos + 6;
    case 'key':
      if (!(p.key instanceof Uint8Array) || p.key.length < 1 || p.key.length > 255) {
        throw new IggyInvalidError('messages key must be 1..255 bytes', { context: { field: 'partitioning.key' } });
      }
      out[pos] = 3;
      out[pos + 1] = p.key.length;
      out.set(p.key, pos + 2);
      return pos + 2 + p.key.length;
    default:
      throw new IggyInvalidError('unknown partitioning kind', { context: { field: 'partitioning.kind' } });
  }
}

/** Reads a Partitioning (the key is copied so it outlives the frame). */
export function readPartitioning(r: ByteReader): Partitioning {
  const kind = r.u8('partitioning.kind');
  const len = r.u8('partitioning.length');
  if (kind === 1) {
    if (len !== 0) throw r.invalid(`balanced partitioning must have length 0, got ${len}`, 'partitioning');
    return { kind: 'balanced' };
  }
  if (kind === 2) {
    if (len !== 4) throw r.invalid(`partition id partitioning must have length 4, got ${len}`, 'partitioning');
    return { kind: 'partition', partitionId: r.u32('partitioning.partitionId') };
  }
  if (kind === 3) {
    if (len === 0) throw r.invalid('messages key must not be empty', 'partitioning');
    return { kind: 'key', key: r.bytesView(len, 'partitioning.key').slice() };
  }
  throw r.fail(`unknown partitioning kind ${kind}`, 'partitioning.kind');
}

/** Convenience constructors for {@link Partitioning}. */
export const partitioning: {
  readonly balanced: () => Partitioning;
  readonly partitionId: (id: number) => Partitioning;
  readonly key: (key: Uint8Array | string) => Partitioning;
} = {
  balanced: () => ({ kind: 'balanced' }),
  partitionId: (partitionId) => ({ kind: 'partition', partitionId }),
  key: (key) => ({ kind: 'key', key: typeof key === 'string' ? encodeUtf8(key) : key }),
};

/** The polling strategy kinds and their wire codes. */
export const PollingKind = {
  offset: 1,
  timestamp: 2,
  first: 3,
  last: 4,
  next: 5,
} as const;

/** A polling strategy: `offset` and `timestamp` (µs) carry a value; the others send 0. */
export type PollingStrategy =
  | { readonly kind: 'offset'; readonly value: bigint }
  | { readonly kind: 'timestamp'; readonly value: bigint }
  | { readonly kind: 'first' | 'last' | 'next' };

const POLLING_NAMES = ['', 'offset', 'timestamp', 'first', 'last', 'next'] as const;

/** Writes `[kind u8][value u64]`. */
export function writePollingStrategy(w: ByteWriter, s: PollingStrategy): void {
  const code = PollingKind[s.kind];
  if (code === undefined) throw new IggyInvalidError('unknown polling strategy', { context: { field: 'strategy.kind' } });
  w.u8(code);
  w.u64(s.kind === 'offset' || s.kind === 'timestamp' ? checkU64(s.value, 'strategy.value') : 0n);
}

/** Reads a PollingStrategy; the value of first/last/next is ignored. */
export function readPollingStrategy(r: ByteReader): PollingStrategy {
  const code = r.u8('strategy.kind');
  const value = r.u64('strategy.value');
  const name = POLLING_NAMES[code];
  if (name === undefined || name === '') throw r.fail(`unknown polling strategy ${code}`, 'strategy.kind');
  if (name === 'offset' || name === 'timestamp') return { kind: name, value };
  return { kind: name };
}

/** Writes the optional partition `[flag u8][u32]` (absent still sends the u32 as 0). */
export function writeOptionalPartition(w: ByteWriter, partitionId: number | undefined): void {
  if (partitionId === undefined) w.u8(0).u32(0);
  else w.u8(1).u32(checkU32(partitionId, 'partitionId'));
}

/** Reads the optional partition; any flag other than 1 means absent. */
export function readOptionalPartition(r: ByteReader): number | undefined {
  const flag = r.u8('partition.flag');
  const id = r.u32('partitionId');
  return flag === 1 ? id : undefined;
}
