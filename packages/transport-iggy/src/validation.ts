/**
 * The Iggy-specific argument checks. The shared ones (names, offsets, counts, timeouts, keys)
 * come from `@agdx/transport`, so a bad argument fails here exactly as it does on MemoryLog,
 * before any byte goes to the server.
 */

import { checkPartitionId as checkPartitionIdForm, InvalidArgumentError, MAX_PAYLOAD_BYTES } from '@agdx/transport';

/**
 * Checks a partition id's form as every transport does, and also refuses u32::MAX, which Iggy
 * reserves as its "resync required" marker in poll replies.
 */
export function checkPartitionId(partition: number): number {
  checkPartitionIdForm(partition);
  if (partition === 0xffff_ffff) {
    throw new InvalidArgumentError('partition must be a non-negative integer', { context: { partition } });
  }
  return partition;
}

/** Checks a payload: a Uint8Array of 1..64,000,000 bytes. */
export function checkPayload(payload: Uint8Array): Uint8Array {
  if (!(payload instanceof Uint8Array)) throw new InvalidArgumentError('payload must be a Uint8Array');
  if (payload.length < 1 || payload.length > MAX_PAYLOAD_BYTES) {
    throw new InvalidArgumentError(`payload must be 1..${MAX_PAYLOAD_BYTES} bytes`, { context: { length: payload.length } });
  }
  return payload;
}
