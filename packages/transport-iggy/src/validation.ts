/**
 * Argument checks, mirroring the rules `@agdx/transport` documents, so a bad argument fails
 * here with `InvalidArgumentError` before any byte goes to the server.
 */

import {
  CancelledError,
  DEFAULT_READ_COUNT,
  InvalidArgumentError,
  MAX_KEY_BYTES,
  MAX_NAME_BYTES,
  MAX_PARTITIONS,
  MAX_PAYLOAD_BYTES,
  MAX_READ_COUNT,
  MAX_WAIT_MS,
} from '@agdx/transport';

const encoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_U64 = (1n << 64n) - 1n;
const MAX_EXPIRY = MAX_U64 - 1n;

/** UTF-8 bytes of a well-formed string. */
export function utf8Of(text: string, what: string): Uint8Array {
  if (typeof text !== 'string') throw new InvalidArgumentError(`${what} must be a string`);
  if (LONE_SURROGATE.test(text)) throw new InvalidArgumentError(`${what} is not well-formed Unicode`);
  return encoder.encode(text);
}

/** Checks a stream, topic, group or consumer name: 1..255 UTF-8 bytes. */
export function checkName(name: string, what: string): string {
  const length = typeof name === 'string' && name.length > MAX_NAME_BYTES ? MAX_NAME_BYTES + 1 : utf8Of(name, `${what} name`).length;
  if (length < 1 || length > MAX_NAME_BYTES) {
    throw new InvalidArgumentError(`${what} name must be 1..${MAX_NAME_BYTES} UTF-8 bytes`, { context: { [what]: String(name).slice(0, 64) } });
  }
  return name;
}

/** Checks a partition id's form. */
export function checkPartitionId(partition: number): number {
  if (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0 || partition > 0xffff_fffe) {
    throw new InvalidArgumentError('partition must be a non-negative integer', { context: { partition } });
  }
  return partition;
}

/** Checks a partition count, 1..1000. */
export function checkPartitionCount(count: number): number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_PARTITIONS) {
    throw new InvalidArgumentError(`partition count must be an integer 1..${MAX_PARTITIONS}`, { context: { partitions: count } });
  }
  return count;
}

/** Checks an offset (u64). */
export function checkOffset(offset: bigint, what = 'offset'): bigint {
  if (typeof offset !== 'bigint' || offset < 0n || offset > MAX_U64) {
    throw new InvalidArgumentError(`${what} must be a bigint in 0..2^64-1`, { context: { [what]: String(offset) } });
  }
  return offset;
}

/** Checks a message expiry: undefined (never) or 1..2^64-2 µs. */
export function checkExpiry(expiry: bigint | undefined): bigint | undefined {
  if (expiry === undefined) return undefined;
  if (typeof expiry !== 'bigint' || expiry < 1n || expiry > MAX_EXPIRY) {
    throw new InvalidArgumentError('messageExpiryMicros must be undefined or a bigint 1..2^64-2', { context: { messageExpiryMicros: String(expiry) } });
  }
  return expiry;
}

/** Checks a read count (default 1,000). */
export function checkMaxCount(maxCount: number | undefined): number {
  if (maxCount === undefined) return DEFAULT_READ_COUNT;
  if (typeof maxCount !== 'number' || !Number.isInteger(maxCount) || maxCount < 0 || maxCount > MAX_READ_COUNT) {
    throw new InvalidArgumentError(`maxCount must be an integer 0..${MAX_READ_COUNT}`, { context: { maxCount } });
  }
  return maxCount;
}

/** Checks a wait timeout in ms. */
export function checkTimeout(timeoutMs: number): number {
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_WAIT_MS) {
    throw new InvalidArgumentError(`timeoutMs must be a number 0..${MAX_WAIT_MS}`, { context: { timeoutMs } });
  }
  return Math.floor(timeoutMs);
}

/** Checks a payload: a Uint8Array of 1..64,000,000 bytes. */
export function checkPayload(payload: Uint8Array): Uint8Array {
  if (!(payload instanceof Uint8Array)) throw new InvalidArgumentError('payload must be a Uint8Array');
  if (payload.length < 1 || payload.length > MAX_PAYLOAD_BYTES) {
    throw new InvalidArgumentError(`payload must be 1..${MAX_PAYLOAD_BYTES} bytes`, { context: { length: payload.length } });
  }
  return payload;
}

/** A routing key as bytes, 1..255 long. */
export function routingKeyBytes(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === 'string' ? utf8Of(key, 'routing key') : key;
  if (!(bytes instanceof Uint8Array)) throw new InvalidArgumentError('routing key must be a string or a Uint8Array');
  if (bytes.length < 1 || bytes.length > MAX_KEY_BYTES) {
    throw new InvalidArgumentError(`routing key must be 1..${MAX_KEY_BYTES} bytes`, { context: { length: bytes.length } });
  }
  return bytes;
}

/** Throws `CancelledError` when the signal already fired. */
export function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new CancelledError('the operation was aborted', { cause: signal.reason });
}
