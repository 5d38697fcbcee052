/**
 * `@agdx/iggy-protocol/wasm-checksums`: the opt-in WebAssembly batch hasher, for Node-only
 * callers (the TCP client and the dev server install it at start). It compiles a small
 * WebAssembly module of ours (`wasm/xxh3.wat`) that hashes every frame of a VSR message batch in
 * one call with native 64-bit multiplies; once loaded, the main entry's encoders, decoders and
 * `xxh3_64` use it for inputs up to 8 MiB. The main entry never imports this file, because edge
 * runtimes forbid compiling WebAssembly at run time.
 * @module
 */

import { loadXxh3Wasm } from './internal/xxh3-wasm.js';

export { wasmBatchHashingReady } from './checksums.js';

/**
 * Compiles the WebAssembly batch hasher once and installs it for the rest of the process.
 * Idempotent and safe to call concurrently. Rejects with `IggyUnsupportedError` (kind
 * `unsupported`) where the runtime has no WebAssembly or refuses to compile it; the JavaScript
 * checksums then stay in use, and a later call tries again.
 */
export function loadWasmChecksums(): Promise<void> {
  return loadXxh3Wasm();
}
