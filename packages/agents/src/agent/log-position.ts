import { LogPosition } from '@agdx/wire';

/** A record's address on a name-addressed transport. */
export interface RecordAddress {
  /** Stream name. */
  readonly stream: string;
  /** Topic name. */
  readonly topic: string;
  /** 0-based partition id. */
  readonly partition: number;
  /** Offset in the partition. */
  readonly offset: bigint;
}

const encoder = new TextEncoder();
const ids = new Map<string, number>();

/**
 * A stable u32 for a stream or topic name (FNV-1a 32 of its UTF-8 bytes). `LogTransport`
 * addresses streams and topics by name and exposes no numeric ids, while `LogPosition` (20
 * bytes) needs them; every runtime in a deployment derives the same number from the same name,
 * so positions written by one agent are read back by another.
 */
export function nameId(name: string): number {
  const cached = ids.get(name);
  if (cached !== undefined) return cached;
  let hash = 0x811c9dc5;
  for (const byte of encoder.encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  if (ids.size < 4096) ids.set(name, hash);
  return hash;
}

/** The `LogPosition` of a record (see {@link nameId} for the stream and topic ids). */
export function logPositionOf(address: RecordAddress): LogPosition {
  return new LogPosition(nameId(address.stream), nameId(address.topic), address.partition, address.offset);
}
