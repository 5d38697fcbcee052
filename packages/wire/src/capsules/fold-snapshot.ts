import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { CodecError, InvalidError } from '../errors.js';
import { ConversationId } from '../ids/machine-id.js';

const U32_MAX = 0xffff_ffffn;
const U64_MAX = 0xffff_ffff_ffff_ffffn;
const SURFACE = 'fold snapshot';

/** A folded conversation state and the log offsets it covers, for fast resume. */
export interface FoldSnapshot {
  /** The conversation folded. */
  readonly conversation: ConversationId;
  /** Last folded offset per partition (partition u32 → offset u64). */
  readonly asOf: ReadonlyMap<number, bigint>;
  /** The application's folded state, opaque bytes. */
  readonly state: Uint8Array;
}

function checkAsOf(asOf: ReadonlyMap<number, bigint>): void {
  for (const [partition, offset] of asOf) {
    if (!Number.isInteger(partition) || partition < 0 || BigInt(partition) > U32_MAX) {
      throw new InvalidError(`partition ${partition} must fit u32`, { context: { field: 'as_of' } });
    }
    if (typeof offset !== 'bigint' || offset < 0n || offset > U64_MAX) {
      throw new InvalidError(`offset ${String(offset)} must fit u64`, { context: { field: 'as_of' } });
    }
  }
}

/** Encodes a snapshot: `conversation`, `as_of` (sorted by partition), `state`. */
export function encodeFoldSnapshot(snapshot: FoldSnapshot): Uint8Array {
  checkAsOf(snapshot.asOf);
  const asOf = new Map<CborValue, CborValue>(
    [...snapshot.asOf].sort(([a], [b]) => a - b).map(([p, o]) => [BigInt(p), o] as [CborValue, CborValue]),
  );
  return encodeCbor(
    new Map<CborValue, CborValue>([
      ['conversation', snapshot.conversation.toBytes()],
      ['as_of', asOf],
      ['state', snapshot.state],
    ]),
  );
}

/** Decodes a snapshot (surface `fold snapshot`); partitions beyond u32 and offsets beyond u64 are CodecErrors. */
export function decodeFoldSnapshot(bytes: Uint8Array): FoldSnapshot {
  const r = FieldReader.decode(bytes, SURFACE, CAPSULE_LIMITS.foldSnapshot);
  const conversation = ConversationId.fromBytes(r.bytes('conversation'));
  const asOfReader = r.map('as_of');
  const asOf = new Map<number, bigint>();
  for (const [key, value] of asOfReader.entries()) {
    if (typeof key !== 'bigint' || key < 0n || key > U32_MAX) {
      throw new CodecError(`partition key in ${SURFACE}.as_of must fit u32`, { context: { surface: SURFACE, operation: 'as_of' } });
    }
    if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) {
      throw new CodecError(`offset in ${SURFACE}.as_of must fit u64`, { context: { surface: SURFACE, operation: 'as_of' } });
    }
    asOf.set(Number(key), value);
  }
  const state = r.bytes('state');
  return { conversation, asOf, state };
}

/** Where to resume one partition: the snapshot offset + 1 (saturating at u64 max), or 0 when absent. */
export function foldSnapshotResumeOffset(snapshot: FoldSnapshot, partition: number): bigint {
  const offset = snapshot.asOf.get(partition);
  if (offset === undefined) return 0n;
  return offset >= U64_MAX ? U64_MAX : offset + 1n;
}

/** Resume offsets for every partition the snapshot covers, sorted by partition. */
export function resumeOffsets(snapshot: FoldSnapshot): ReadonlyMap<number, bigint> {
  return new Map([...snapshot.asOf.keys()].sort((a, b) => a - b).map((p) => [p, foldSnapshotResumeOffset(snapshot, p)]));
}
