/**
 * Loading the WebAssembly batch hasher at connect. It is an accelerator: where the runtime has
 * no WebAssembly or refuses to compile it (`node --jitless`, kind `unsupported`) the JavaScript
 * checksums give the same bytes and the connection goes on. Any other failure is a fault (a
 * damaged package or bundle, a bug) that silence would hide, so `connect` reports it.
 */

import { TransportFailureError } from '@agdx/transport';
import { IggyProtocolError } from '@agdx/iggy-protocol';
import { loadWasmChecksums } from '@agdx/iggy-protocol/wasm-checksums';

/**
 * Loads the batch hasher; resolves where WebAssembly is unsupported, and rejects with a
 * `TransportFailureError` (kind `transport`, the loader's error as `cause`) on any other failure.
 */
export async function loadBatchHasher(): Promise<void> {
  try {
    await loadWasmChecksums();
  } catch (cause) {
    if (IggyProtocolError.is(cause, 'unsupported')) return;
    throw new TransportFailureError('loading the WebAssembly batch hasher failed (other than by the runtime not supporting WebAssembly)', { cause });
  }
}
