/**
 * Argument checks shared by transports, giving the same typed errors for the same mistakes.
 * Iggy's limits are used so that what the embedded log accepts, the server accepts too.
 */

import { CancelledError, InvalidArgumentError } from './errors.js';
import { utf8 } from './headers.js';

/** Iggy's bound on stream, topic, group and consumer names, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 255;
/** Iggy's bound on partitions per topic. */
export const MAX_PARTITIONS = 1000;
/** Iggy's bound on one payload (`TooBigMessagePayload`). */
export const MAX_PAYLOAD_BYTES = 64_000_000;
/** The largest `maxCount` a read accepts. */
export const MAX_READ_COUNT = 1_000_000;
/** The `maxCount` used when a read gives none. */
export const DEFAULT_READ_COUNT = 1000;
/** The longest wait a timer can express. */
export const MAX_WAIT_MS = 2_147_483_647;
/** Largest expiry below Iggy's "never" sentinel (u64::MAX). */
const MAX_EXPIRY_MICROS = (1n << 64n) - 2n;
const MAX_OFFSET = (1n << 64n) - 1n;

// Every read, append and commit checks its stream and topic names, and a client uses a handful:
// names that passed are remembered (the check is a pure function of the text), so the hot path
// does not encode them to UTF-8 each time. Bounded: a caller cycling through ever new names
// empties it rather than growing it.
const GOOD_NAMES = new Set<string>();
const GOOD_NAMES_LIMIT = 256;

/** Checks an Iggy name (stream, topic, group, consumer): 1..255 UTF-8 bytes. */
export function checkName(name: string, what: string): string {
  if (GOOD_NAMES.has(name)) return name;
  if (typeof name !== 'string') throw new InvalidArgumentError(`${what} name must be a string`);
  const length = name.length > MAX_NAME_BYTES ? MAX_NAME_BYTES + 1 : utf8(name, `${what} name`).length;
  if (length < 1 || length > MAX_NAME_BYTES) {
    throw new InvalidArgumentError(`${what} name must be 1..${MAX_NAME_BYTES} UTF-8 bytes`, {
      context: { [what]: name.slice(0, 64) },
    });
  }
  if (GOOD_NAMES.size >= GOOD_NAMES_LIMIT) GOOD_NAMES.clear();
  GOOD_NAMES.add(name);
  return name;
}

/** Checks a partition id's form (a non-negative integer); existence is the log's business. */
export function checkPartitionId(partition: number): number {
  if (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0 || partition > 0xffff_ffff) {
    throw new InvalidArgumentError('partition must be a non-negative integer', { context: { partition } });
  }
  return partition;
}

/** Checks a partition count: an integer 1..1000. */
export function checkPartitionCount(count: number): number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_PARTITIONS) {
    throw new InvalidArgumentError(`partition count must be an integer 1..${MAX_PARTITIONS}`, {
      context: { partitions: count },
    });
  }
  return count;
}

/** Checks an offset: a bigint in the u64 range. */
export function checkOffset(offset: bigint, what = 'offset'): bigint {
  if (typeof offset !== 'bigint' || offset < 0n || offset > MAX_OFFSET) {
    throw new InvalidArgumentError(`${what} must be a bigint in 0..2^64-1`, { context: { [what]: String(offset) } });
  }
  return offset;
}

/** Checks a message expiry: `undefined` (never) or a bigint 1..2^64-2 microseconds. */
export function checkExpiry(expiry: bigint | undefined): bigint | undefined {
  if (expiry === undefined) return undefined;
  if (typeof expiry !== 'bigint' || expiry < 1n || expiry > MAX_EXPIRY_MICROS) {
    throw new InvalidArgumentError('messageExpiryMicros must be undefined or a bigint 1..2^64-2', {
      context: { messageExpiryMicros: String(expiry) },
    });
  }
  return expiry;
}

/** Largest size limit below Iggy's "unlimited" sentinel (u64::MAX; 0 is "server default"). */
const MAX_TOPIC_BYTES = (1n << 64n) - 2n;

/** Checks a topic size limit: `undefined` (unlimited) or a bigint 1..2^64-2 bytes. */
export function checkMaxTopicBytes(maxTopicBytes: bigint | undefined): bigint | undefined {
  if (maxTopicBytes === undefined) return undefined;
  if (typeof maxTopicBytes !== 'bigint' || maxTopicBytes < 1n || maxTopicBytes > MAX_TOPIC_BYTES) {
    throw new InvalidArgumentError('maxTopicBytes must be undefined or a bigint 1..2^64-2', {
      context: { maxTopicBytes: String(maxTopicBytes) },
    });
  }
  return maxTopicBytes;
}

/** Checks a read count, defaulting to {@link DEFAULT_READ_COUNT}. */
export function checkMaxCount(maxCount: number | undefined): number {
  if (maxCount === undefined) return DEFAULT_READ_COUNT;
  if (typeof maxCount !== 'number' || !Number.isInteger(maxCount) || maxCount < 0 || maxCount > MAX_READ_COUNT) {
    throw new InvalidArgumentError(`maxCount must be an integer 0..${MAX_READ_COUNT}`, { context: { maxCount } });
  }
  return maxCount;
}

/**
 * A follower's batch size: like {@link checkMaxCount}, but at least 1, since a follower that asks
 * for no records never moves past the record its wait says is there and would read forever.
 * @throws InvalidArgumentError
 */
export function checkFollowCount(maxCount: number | undefined): number {
  const count = checkMaxCount(maxCount);
  if (count === 0) throw new InvalidArgumentError(`a follower's maxCount must be an integer 1..${MAX_READ_COUNT}`, { context: { maxCount } });
  return count;
}

/** Checks a wait timeout: an integer number of milliseconds, 0..2^31-1. */
export function checkTimeout(timeoutMs: number): number {
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_WAIT_MS) {
    throw new InvalidArgumentError(`timeoutMs must be a number 0..${MAX_WAIT_MS}`, { context: { timeoutMs } });
  }
  return Math.floor(timeoutMs);
}

/** Throws {@link CancelledError} when the signal has already fired. */
export function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new CancelledError('the operation was aborted', { cause: signal.reason });
}
