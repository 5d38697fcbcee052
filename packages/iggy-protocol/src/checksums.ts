/**
 * XXH3-64 (VSR message and batch checksums) and XXH32 seed 0 (MessagesKey partitioning, string
 * consumer ids), from hash-wasm. hash-wasm instantiates WebAssembly asynchronously, so the
 * package's hashing is initialised once with `await initChecksums()`; after that every hash is
 * synchronous and reuses one hasher instance, which keeps the encode hot path free of promises.
 */

import { createXXHash3, createXXHash32 } from 'hash-wasm';
import type { IHasher } from 'hash-wasm';
import { IggyInvalidError } from './errors.js';

let hasher3: IHasher | undefined;
let hasher32: IHasher | undefined;
let pending: Promise<void> | undefined;

/**
 * Initialises the hashers. Idempotent and safe to call concurrently; must complete before any
 * encoder or decoder that computes or verifies a checksum runs.
 */
export function initChecksums(): Promise<void> {
  pending ??= Promise.all([createXXHash3(0, 0), createXXHash32(0)]).then(([h3, h32]) => {
    hasher3 = h3;
    hasher32 = h32;
  });
  return pending;
}

/** True once {@link initChecksums} has completed. */
export function checksumsReady(): boolean {
  return hasher3 !== undefined;
}

function notReady(): IggyInvalidError {
  return new IggyInvalidError('checksums are not initialised: await initChecksums() first');
}

function digestToBigInt(d: Uint8Array): bigint {
  // hash-wasm emits the canonical (big-endian) digest; two 32-bit halves avoid a DataView per hash.
  const hi = (((d[0] as number) << 24) | ((d[1] as number) << 16) | ((d[2] as number) << 8) | (d[3] as number)) >>> 0;
  const lo = (((d[4] as number) << 24) | ((d[5] as number) << 16) | ((d[6] as number) << 8) | (d[7] as number)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** The big-endian XXH3-64 digest (seed 0) of `bytes`. */
function xxh3Digest(bytes: Uint8Array): Uint8Array {
  const h = hasher3;
  if (h === undefined) throw notReady();
  h.init();
  h.update(bytes);
  return h.digest('binary');
}

/** XXH3-64 with seed 0 and the default secret. */
export function xxh3_64(bytes: Uint8Array): bigint {
  return digestToBigInt(xxh3Digest(bytes));
}

/**
 * XXH3-64 of `bytes` written as a little-endian u64 at `at` of `out`, without building a bigint:
 * the send path hashes every frame, and a bigint per frame was a measurable part of its cost.
 */
export function xxh3_64Into(bytes: Uint8Array, out: Uint8Array, at: number): void {
  const d = xxh3Digest(bytes);
  // The digest is big-endian; the wire wants little-endian.
  for (let i = 0; i < 8; i++) out[at + i] = d[7 - i] as number;
}

/** True when XXH3-64 of `bytes` equals the little-endian u64 at `at` of `stored` (no bigint built). */
export function xxh3_64Matches(bytes: Uint8Array, stored: Uint8Array, at: number): boolean {
  const d = xxh3Digest(bytes);
  for (let i = 0; i < 8; i++) if (stored[at + i] !== d[7 - i]) return false;
  return true;
}

/** A streaming XXH3-64 (seed 0) over several updates; used for the batch checksum. */
export interface Xxh3Stream {
  /** Feeds bytes. */
  update(bytes: Uint8Array): void;
  /** Returns the digest; the stream must not be used afterwards. */
  digest(): bigint;
}

/** Starts a streaming XXH3-64. Only one stream may be open at a time (the hasher is shared). */
export function xxh3Stream(): Xxh3Stream {
  const h = hasher3;
  if (h === undefined) throw notReady();
  h.init();
  return {
    update(bytes: Uint8Array): void {
      h.update(bytes);
    },
    digest(): bigint {
      return digestToBigInt(h.digest('binary'));
    },
  };
}

/** XXH32 with seed 0. */
export function xxh32(bytes: Uint8Array): number {
  const h = hasher32;
  if (h === undefined) throw notReady();
  h.init();
  h.update(bytes);
  const d = h.digest('binary');
  return new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(0, false);
}

/** The partition index a MessagesKey send lands on: `XXH32(key, 0) mod partitionCount`. */
export function partitionForKey(key: Uint8Array, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) throw new IggyInvalidError('partitionCount must be a positive integer', { context: { field: 'partitionCount' } });
  return xxh32(key) % partitionCount;
}
