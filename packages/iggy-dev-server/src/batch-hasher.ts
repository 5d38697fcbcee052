/**
 * Loading the WebAssembly batch hasher at start (`batchHashing: 'wasm'`). Where the runtime has
 * no WebAssembly or refuses to compile it (`node --jitless`, kind `unsupported`) the JavaScript
 * checksums verify the same bytes and the server starts. Any other failure is a fault (a damaged
 * package or bundle, a bug) that silence would hide, so the start fails with it.
 */

import { IggyProtocolError } from '@agdx/iggy-protocol';
import { loadWasmChecksums } from '@agdx/iggy-protocol/wasm-checksums';
import { DevServerError } from './errors.js';

/**
 * Loads the batch hasher; resolves where WebAssembly is unsupported, and rejects with a
 * `DevServerError` of kind `internal` (the loader's error as `cause`) on any other failure.
 */
export async function loadBatchHasher(): Promise<void> {
  try {
    await loadWasmChecksums();
  } catch (cause) {
    if (IggyProtocolError.is(cause, 'unsupported')) return;
    throw new DevServerError('internal', "loading the WebAssembly batch hasher failed (other than by the runtime not supporting WebAssembly); batchHashing: 'javascript' starts without it", { cause });
  }
}
