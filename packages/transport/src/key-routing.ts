/**
 * Keyed partition choice, identical to the Iggy server's: XXH32 (seed 0) of the key's bytes,
 * modulo the partition count. hash-wasm needs one asynchronous WebAssembly start-up; after that
 * the hasher is synchronous, so a keyed append costs no extra promise.
 */

import { createXXHash32, type IHasher } from 'hash-wasm';
import { InvalidArgumentError } from './errors.js';
import { utf8 } from './headers.js';

/** Iggy's bound on a messages key (`Partitioning::MessagesKey`, 1..255 bytes). */
export const MAX_KEY_BYTES = 255;

let hasher: IHasher | undefined;
let starting: Promise<IHasher> | undefined;

/** Starts (once) and returns the shared XXH32 hasher. */
function loadHasher(): Promise<IHasher> {
  starting ??= createXXHash32(0).then((h) => (hasher = h));
  return starting;
}

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

function digest(h: IHasher, bytes: Uint8Array): number {
  h.init();
  h.update(bytes);
  const out = h.digest('binary');
  // hash-wasm gives the canonical (big-endian) digest.
  return (((out[0] ?? 0) << 24) | ((out[1] ?? 0) << 16) | ((out[2] ?? 0) << 8) | (out[3] ?? 0)) >>> 0;
}

/** XXH32 with seed 0 of arbitrary bytes (a string is hashed as UTF-8), as an unsigned 32-bit number. */
export async function xxh32(data: string | Uint8Array): Promise<number> {
  const bytes = typeof data === 'string' ? utf8(data, 'data') : data;
  return digest(hasher ?? (await loadHasher()), bytes);
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
  return digest(hasher ?? (await loadHasher()), bytes) % partitionCount;
}

/**
 * Synchronous variant for hot paths: the partition when the hasher has started, `undefined`
 * before that (then call {@link partitionForKey}). The key must already be validated bytes.
 */
export function partitionForKeySync(bytes: Uint8Array, partitionCount: number): number | undefined {
  if (hasher === undefined) {
    void loadHasher();
    return undefined;
  }
  return digest(hasher, bytes) % partitionCount;
}

// Agents key every record by its conversation, so the same few keys recur on every append: their
// hashes are remembered (bounded) to spare the UTF-8 encoding and the hashing.
const STRING_HASH_CACHE_LIMIT = 4096;
const stringHashes = new Map<string, number>();

/**
 * {@link partitionForKeySync} for a string key, remembering each key's hash. `undefined` before
 * the hasher has started.
 * @throws InvalidArgumentError for a key outside 1..255 UTF-8 bytes.
 */
export function partitionForStringKeySync(key: string, partitionCount: number): number | undefined {
  const known = stringHashes.get(key);
  if (known !== undefined) return known % partitionCount;
  const bytes = keyBytes(key);
  if (hasher === undefined) {
    void loadHasher();
    return undefined;
  }
  const hash = digest(hasher, bytes);
  if (stringHashes.size >= STRING_HASH_CACHE_LIMIT) stringHashes.clear();
  stringHashes.set(key, hash);
  return hash % partitionCount;
}
