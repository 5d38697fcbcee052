/**
 * The slot for an optional batch hasher: a faster XXH3-64 for whole VSR message batches that a
 * caller installs on purpose (today only the WebAssembly one of `@agdx/iggy-protocol/wasm-checksums`).
 * The package's main entry never fills it, so it compiles no WebAssembly: edge runtimes forbid
 * that, and the JavaScript hashing is complete without it.
 */

/** What an installed batch hasher provides. */
export interface BatchHasher {
  /** Largest input (bytes) it takes; larger ones stay on the JavaScript path. */
  readonly maxBytes: number;
  /** XXH3-64 of `bytes` (at most {@link maxBytes}). */
  hash(bytes: Uint8Array): bigint;
  /** Writes every frame checksum and the batch checksum of a well-formed batch of `count` frames in place. */
  seal(batch: Uint8Array, count: number): void;
  /**
   * Verifies a batch whose structure was checked: -1 when every checksum matches, the index of the
   * first frame whose checksum differs, or `count` when only the batch checksum differs.
   */
  check(batch: Uint8Array, count: number): number;
}

let installed: BatchHasher | undefined;

/** Installs `hasher` for the rest of the process (the last install wins). */
export function installBatchHasher(hasher: BatchHasher): void {
  installed = hasher;
}

/** The installed batch hasher, if any. */
export function batchHasher(): BatchHasher | undefined {
  return installed;
}
