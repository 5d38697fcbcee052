// Run by wasm-entry.test.ts under `node --jitless`, a runtime without WebAssembly (like an edge
// runtime that forbids compiling it): the main entry must hash, encode and verify, and the
// opt-in WebAssembly entry must refuse with a typed error. Prints one JSON line.
import { decodeMessageBatch, encodeMessageBatch, xxh32, xxh3_64, xxh3Stream } from '@agdx/iggy-protocol';
import { loadWasmChecksums } from '@agdx/iggy-protocol/wasm-checksums';

const long = Uint8Array.from({ length: 5000 }, (_, i) => (i * 31 + 7) & 0xff);
const stream = xxh3Stream();
stream.update(long.subarray(0, 1234));
stream.update(long.subarray(1234));
const batch = encodeMessageBatch(Array.from({ length: 20 }, (_, i) => ({ id: BigInt(i + 1), payload: long.subarray(0, 50 * i) })));
let load: unknown = 'loaded';
try {
  await loadWasmChecksums();
} catch (error) {
  load = { name: (error as Error).name, kind: (error as { kind?: unknown }).kind };
}
console.log(
  JSON.stringify({
    webAssembly: typeof WebAssembly,
    xxh3Long: xxh3_64(long).toString(16),
    xxh3Stream: stream.digest().toString(16),
    xxh32: xxh32(long),
    frames: decodeMessageBatch(batch, 0, { verifyChecksums: true }).frames.length,
    load,
  }),
);
