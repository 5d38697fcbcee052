/**
 * Keyed partition choice, identical to the Iggy server's: XXH32 (seed 0) of the key's bytes,
 * modulo the partition count. The hash is plain TypeScript (see xxh32.ts), so routing is
 * synchronous and needs no WebAssembly.
 */

import { InvalidArgumentError } from './errors.js';
import { utf8 } from './headers.js';
import { xxh32Bytes } from './xxh32.js';

/** Iggy's bound on a messages key (`Partitioning::MessagesKey`, 1..255 bytes). */
export const MAX_KEY_BYTES = 255;

/** The key as bytes, checked against Iggy's 1..255-byte rule. */
export function keyBytes(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === 'string' ? utf8(key, 'routing key') : key;
  if (!(bytes instanceof Uint8Array)) throw new InvalidArgumentError('routing key must be a string or a Uint8Array');
  if (bytes.length < 1 || bytes.length > MAX_KEY_BYTES) {
    throw new InvalidArgumentError(`routing key must be 1..${MAX_KEY_BYTES} bytes`, {
      context: { length: bytes.length },
    });
  }
  return bytes;
}

/**
 * XXH32 with seed 0 of arbitrary bytes (a string is hashed as UTF-8), as an unsigned 32-bit number.
 * Kept asynchronous for callers written against the earlier WebAssembly hasher; the work is synchronous.
 */
export async function xxh32(data: string | Uint8Array): Promise<number> {
  const bytes = typeof data === 'string' ? utf8(data, 'data') : data;
  if (!(bytes instanceof Uint8Array)) throw new InvalidArgumentError('data must be a string or a Uint8Array');
  return xxh32Bytes(bytes);
}

/**
 * The partition Iggy routes a keyed send to: `xxh32(key) % partitionCount`. The key must be
 * 1..255 bytes (a string is taken as UTF-8).
 */
export async function partitionForKey(key: string | Uint8Array, partitionCount: number): Promise<number> {
  const bytes = keyBytes(key);
  if (!Number.isInteger(partitionCount) || partitionCount < 1) {
    throw new InvalidArgumentError('partition count must be a positive integer');
  }
  return xxh32Bytes(bytes) % partitionCount;
}

/**
 * Synchronous variant for hot paths. The key must already be validated bytes. The return type
 * still admits `undefined` (the earlier hasher needed a start-up) so existing callers keep their
 * fallback; it is always a number now.
 */
export function partitionForKeySync(bytes: Uint8Array, partitionCount: number): number | undefined {
  return xxh32Bytes(bytes) % partitionCount;
}

// Agents key every record by its conversation, so the same few keys recur on every append: their
// hashes are remembered (bounded) to spare the UTF-8 encoding and the hashing.
const STRING_HASH_CACHE_LIMIT = 4096;
const stringHashes = new Map<string, number>();

/**
 * {@link partitionForKeySync} for a string key, remembering each key's hash.
 * @throws InvalidArgumentError for a key outside 1..255 UTF-8 bytes.
 */
export function partitionForStringKeySync(key: string, partitionCount: number): number | undefined {
  return stringKeyHash(key) % partitionCount;
}

/**
 * The XXH32 of a string key's UTF-8 bytes, remembered per key (bounded).
 * @throws InvalidArgumentError for a key outside 1..255 UTF-8 bytes.
 */
export function stringKeyHash(key: string): number {
  const known = stringHashes.get(key);
  if (known !== undefined) return known;
  const hash = xxh32Bytes(keyBytes(key));
  if (stringHashes.size >= STRING_HASH_CACHE_LIMIT) stringHashes.clear();
  stringHashes.set(key, hash);
  return hash;
}

/**
 * The XXH32 a key routes by: of a string's UTF-8 bytes or of the bytes given, checked against
 * the 1..255-byte rule. The partition is this modulo the partition count.
 * @throws InvalidArgumentError for a key that is not a string or bytes, or outside 1..255 bytes.
 */
export function routingKeyHash(key: string | Uint8Array): number {
  return typeof key === 'string' ? stringKeyHash(key) : xxh32Bytes(keyBytes(key));
}
