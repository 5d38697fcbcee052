/**
 * XXH3-64 (VSR message and batch checksums) and XXH32 seed 0 (MessagesKey partitioning, string
 * consumer ids), synchronous and in plain JavaScript: no WebAssembly and no BigInt on the hot
 * path, so the package runs on edge runtimes that forbid compiling WebAssembly. XXH3 is ours
 * (`internal/xxh3-*.ts`: no maintained pure-JS XXH3-64 without BigInt exists on npm); XXH32 is
 * js-xxhash. Tests hold both to hash-wasm and to the Iggy vectors.
 *
 * Node-only callers (the TCP client, the dev server) may install the WebAssembly batch hasher of
 * `@agdx/iggy-protocol/wasm-checksums`, which hashes all frames of a VSR batch in one call; the
 * functions here then hand it inputs above 240 bytes and the batch codecs hand it whole batches.
 */

import { xxHash32 } from 'js-xxhash';
import { IggyInvalidError } from './errors.js';
import { batchHasher } from './internal/batch-hasher.js';
import { XXH3_OUT } from './internal/u64-math.js';
import { xxh3Long } from './internal/xxh3-long.js';
import { viewFor, XXH3_SHORT_MAX, xxh3Short } from './internal/xxh3-short.js';
import { Xxh3StreamState } from './internal/xxh3-stream.js';

/** Options of {@link initChecksums}. */
export interface ChecksumOptions {
  /**
   * Also load the WebAssembly batch hasher, as `loadWasmChecksums()` of
   * `@agdx/iggy-protocol/wasm-checksums` does. Default false.
   * @deprecated Import `loadWasmChecksums` from `@agdx/iggy-protocol/wasm-checksums` instead; this
   * option loads that entry on demand, which a bundle for an edge runtime cannot do.
   */
  readonly wasmBatchHashing?: boolean;
}

// Not a literal, so bundlers leave the WebAssembly entry out of the main entry's bundle.
const WASM_ENTRY = './wasm-checksums.js';

/**
 * Resolves at once: the hashing is synchronous JavaScript and needs no initialisation. Kept so
 * that code written for earlier versions (which had to await it) keeps working. With the
 * deprecated `wasmBatchHashing: true` it loads the WebAssembly batch hasher first.
 */
export async function initChecksums(options: ChecksumOptions = {}): Promise<void> {
  if (options.wasmBatchHashing !== true) return;
  const entry = (await import(WASM_ENTRY)) as { loadWasmChecksums(): Promise<void> };
  await entry.loadWasmChecksums();
}

/** True once a WebAssembly batch hasher is installed (`@agdx/iggy-protocol/wasm-checksums`). */
export function wasmBatchHashingReady(): boolean {
  return batchHasher() !== undefined;
}

/** Always true: every hash is available synchronously from the start. Kept for compatibility. */
export function checksumsReady(): boolean {
  return true;
}

function out64(): bigint {
  return (BigInt(XXH3_OUT[0]!) << 32n) | BigInt(XXH3_OUT[1]!);
}

/** Hashes `bytes[start .. end]` in JavaScript; the digest lands in `XXH3_OUT`. */
function xxh3Range(bytes: Uint8Array, start: number, end: number): void {
  const len = end - start;
  if (len <= XXH3_SHORT_MAX) xxh3Short(bytes, start, len);
  else xxh3Long(viewFor(bytes), start, len);
}

/** XXH3-64 with seed 0 and the default secret. */
export function xxh3_64(bytes: Uint8Array): bigint {
  const len = bytes.length;
  if (len > XXH3_SHORT_MAX) {
    const hasher = batchHasher();
    if (hasher !== undefined && len <= hasher.maxBytes) return hasher.hash(bytes);
  }
  xxh3Range(bytes, 0, len);
  return out64();
}

/**
 * XXH3-64 of `bytes[start .. end]` written as a little-endian u64 at `at` of `out`, without
 * building a bigint or a subarray: the send path hashes every frame.
 */
export function xxh3_64RangeInto(bytes: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
  xxh3Range(bytes, start, end);
  const hi = XXH3_OUT[0]!, lo = XXH3_OUT[1]!;
  out[at] = lo & 0xff;
  out[at + 1] = (lo >>> 8) & 0xff;
  out[at + 2] = (lo >>> 16) & 0xff;
  out[at + 3] = lo >>> 24;
  out[at + 4] = hi & 0xff;
  out[at + 5] = (hi >>> 8) & 0xff;
  out[at + 6] = (hi >>> 16) & 0xff;
  out[at + 7] = hi >>> 24;
}

/**
 * True when XXH3-64 of `bytes[start .. end]` equals the little-endian u64 at `at` of `stored`
 * (no bigint and no subarray built).
 */
export function xxh3_64RangeMatches(bytes: Uint8Array, start: number, end: number, stored: Uint8Array, at: number): boolean {
  xxh3Range(bytes, start, end);
  const lo = (stored[at]! | (stored[at + 1]! << 8) | (stored[at + 2]! << 16) | (stored[at + 3]! << 24)) >>> 0;
  const hi = (stored[at + 4]! | (stored[at + 5]! << 8) | (stored[at + 6]! << 16) | (stored[at + 7]! << 24)) >>> 0;
  return lo === XXH3_OUT[1] && hi === XXH3_OUT[0];
}

/** A streaming XXH3-64 (seed 0) over several updates; used for the batch checksum. */
export interface Xxh3Stream {
  /** Feeds bytes. */
  update(bytes: Uint8Array): void;
  /**
   * Returns the digest of everything fed so far, equal to {@link xxh3_64} of the concatenation.
   * The stream may be fed and digested again afterwards.
   */
  digest(): bigint;
}

/** Starts a streaming XXH3-64. Streams are independent: any number may be open at once. */
export function xxh3Stream(): Xxh3Stream {
  const state = new Xxh3StreamState();
  return {
    update(bytes: Uint8Array): void {
      state.update(bytes);
    },
    digest(): bigint {
      state.digest();
      return out64();
    },
  };
}

/** XXH32 with seed 0. */
export function xxh32(bytes: Uint8Array): number {
  return xxHash32(bytes, 0) >>> 0;
}

/** The partition index a MessagesKey send lands on: `XXH32(key, 0) mod partitionCount`. */
export function partitionForKey(key: Uint8Array, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) throw new IggyInvalidError('partitionCount must be a positive integer', { context: { field: 'partitionCount' } });
  return xxh32(key) % partitionCount;
}
