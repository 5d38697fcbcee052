/**
 * XXH3-64 (VSR message and batch checksums) and XXH32 seed 0 (MessagesKey partitioning, string
 * consumer ids), from hash-wasm. hash-wasm instantiates WebAssembly asynchronously, so the
 * package's hashing is initialised once with `await initChecksums()`; after that every hash is
 * synchronous and reuses one hasher instance, which keeps the encode hot path free of promises.
 * XXH3 of inputs up to 240 bytes (every frame of a small message) is computed in plain JavaScript
 * instead (`internal/xxh3-short.ts`): the call into WebAssembly cost several times the hash.
 *
 * With `initChecksums({ wasmBatchHashing: true })` (Node-only callers: the TCP client and the dev
 * server) whole VSR message batches are hashed by a small WebAssembly module of ours
 * (`wasm/xxh3.wat`, `internal/xxh3-wasm.ts`): all frames in one call, about four times faster
 * than the JavaScript above per frame. It is opt-in because edge runtimes forbid compiling
 * WebAssembly at run time.
 */

import { createXXHash3, createXXHash32 } from 'hash-wasm';
import type { IHasher } from 'hash-wasm';
import { IggyInvalidError } from './errors.js';
import { XXH3_OUT, XXH3_SHORT_MAX, xxh3Short } from './internal/xxh3-short.js';
import { loadXxh3Wasm, WASM_BATCH_MAX, wasmXxh3, xxh3WasmReady } from './internal/xxh3-wasm.js';

let hasher3: IHasher | undefined;
let hasher32: IHasher | undefined;
let pending: Promise<void> | undefined;

/** Options of {@link initChecksums}. */
export interface ChecksumOptions {
  /**
   * Also load the WebAssembly batch hasher, which hashes all frames of a VSR message batch in one
   * call (encode with checksums, and decode with `verifyChecksums`). Default false: it compiles
   * WebAssembly at run time, which edge runtimes forbid. Once loaded it stays on for the process.
   */
  readonly wasmBatchHashing?: boolean;
}

/**
 * Initialises the hashers. Idempotent and safe to call concurrently; must complete before any
 * encoder or decoder that computes or verifies a checksum runs.
 */
export function initChecksums(options: ChecksumOptions = {}): Promise<void> {
  pending ??= Promise.all([createXXHash3(0, 0), createXXHash32(0)]).then(([h3, h32]) => {
    hasher3 = h3;
    hasher32 = h32;
  });
  return options.wasmBatchHashing === true ? Promise.all([pending, loadXxh3Wasm()]).then(() => undefined) : pending;
}

/** True once the WebAssembly batch hasher is loaded (`initChecksums({ wasmBatchHashing: true })`). */
export function wasmBatchHashingReady(): boolean {
  return xxh3WasmReady();
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
  if (bytes.length <= XXH3_SHORT_MAX) {
    if (hasher3 === undefined) throw notReady();
    xxh3Short(bytes, 0, bytes.length);
    return (BigInt(XXH3_OUT[0]!) << 32n) | BigInt(XXH3_OUT[1]!);
  }
  // No init, digest array or hex step: the batch checksum of 1,000 frames is an 8 KB input.
  if (xxh3WasmReady() && bytes.length <= WASM_BATCH_MAX) return wasmXxh3(bytes);
  return digestToBigInt(xxh3Digest(bytes));
}

/** Hashes `bytes[start .. end]`; the digest is left in `XXH3_OUT` or returned big-endian. */
function xxh3Range(bytes: Uint8Array, start: number, end: number): Uint8Array | undefined {
  if (hasher3 === undefined) throw notReady();
  if (end - start <= XXH3_SHORT_MAX) {
    xxh3Short(bytes, start, end - start);
    return undefined;
  }
  return xxh3Digest(bytes.subarray(start, end));
}

/**
 * XXH3-64 of `bytes[start .. end]` written as a little-endian u64 at `at` of `out`, without
 * building a bigint or a subarray: the send path hashes every frame.
 */
export function xxh3_64RangeInto(bytes: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
  const d = xxh3Range(bytes, start, end);
  if (d === undefined) {
    const hi = XXH3_OUT[0]!, lo = XXH3_OUT[1]!;
    out[at] = lo & 0xff;
    out[at + 1] = (lo >>> 8) & 0xff;
    out[at + 2] = (lo >>> 16) & 0xff;
    out[at + 3] = lo >>> 24;
    out[at + 4] = hi & 0xff;
    out[at + 5] = (hi >>> 8) & 0xff;
    out[at + 6] = (hi >>> 16) & 0xff;
    out[at + 7] = hi >>> 24;
    return;
  }
  // The digest is big-endian; the wire wants little-endian.
  for (let i = 0; i < 8; i++) out[at + i] = d[7 - i] as number;
}

/**
 * True when XXH3-64 of `bytes[start .. end]` equals the little-endian u64 at `at` of `stored`
 * (no bigint and no subarray built).
 */
export function xxh3_64RangeMatches(bytes: Uint8Array, start: number, end: number, stored: Uint8Array, at: number): boolean {
  const d = xxh3Range(bytes, start, end);
  if (d === undefined) {
    const lo = (stored[at]! | (stored[at + 1]! << 8) | (stored[at + 2]! << 16) | (stored[at + 3]! << 24)) >>> 0;
    const hi = (stored[at + 4]! | (stored[at + 5]! << 8) | (stored[at + 6]! << 16) | (stored[at + 7]! << 24)) >>> 0;
    return lo === XXH3_OUT[1] && hi === XXH3_OUT[0];
  }
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
