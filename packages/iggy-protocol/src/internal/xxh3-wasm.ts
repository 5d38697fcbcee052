/**
 * The WebAssembly XXH3-64 of `wasm/xxh3.wat`, used for whole VSR message batches: one call hashes
 * every frame, with native 64-bit multiplies. Only the `./wasm-checksums` entry loads it (the
 * main entry never imports this file) because compiling WebAssembly at run time is forbidden on
 * some edge runtimes, where this package runs on its JavaScript hashing; the Node-only client and
 * dev server load it at start.
 *
 * The module owns its memory, so a batch is copied in (a memcpy costs a few per cent of hashing
 * it); when sealing, only the frame checksums are copied back. Memory never shrinks, so batches
 * above {@link WASM_BATCH_MAX} take the JavaScript path instead of growing it without bound.
 */

import { IggyCodecError, IggyUnsupportedError } from '../errors.js';
import { installBatchHasher } from './batch-hasher.js';
import { XXH3_WASM_BASE64 } from './xxh3-wasm-binary.js';

/** Largest batch (bytes) hashed in WebAssembly; larger ones take the JavaScript path. */
export const WASM_BATCH_MAX: number = 8 * 1024 * 1024;

/** Where inputs start in the module's memory (below: the secret and the accumulators). */
const BASE = 256;
const PAGE = 65536;
const BATCH_HEADER = 256;
/** Size of a frame header: [checksum u64][id u128][offset delta u32][timestamp delta u32][headers length u32][payload length u32][reserved u64]. */
const FRAME_HEADER = 48;

interface Xxh3Exports {
  readonly memory: WebAssembly.Memory;
  /** XXH3-64 of `len` bytes at `p` (an i64, so a signed bigint in JavaScript). */
  hash(p: number, len: number): bigint;
  /** Hashes `count` frames tiling [p, end); mode 0 writes, 1 compares. See the WAT source. */
  frames(p: number, end: number, count: number, sums: number, mode: number): number;
}

let exports: Xxh3Exports | undefined;
let pending: Promise<void> | undefined;

/**
 * Compiles and instantiates the module once and installs it as the package's batch hasher; later
 * calls share the first. Rejects with {@link IggyUnsupportedError} where the runtime has no
 * WebAssembly or refuses to compile it (a failed load may be retried).
 */
export function loadXxh3Wasm(): Promise<void> {
  pending ??= (async () => {
    if (typeof WebAssembly === 'undefined') throw new IggyUnsupportedError('this runtime has no WebAssembly; the JavaScript checksums stay in use');
    const binary = Uint8Array.from(atob(XXH3_WASM_BASE64), (c) => c.charCodeAt(0));
    try {
      const { instance } = await WebAssembly.instantiate(binary);
      exports = instance.exports as unknown as Xxh3Exports;
    } catch (cause) {
      throw new IggyUnsupportedError('the runtime refused to compile the WebAssembly batch hasher; the JavaScript checksums stay in use', { cause });
    }
    installBatchHasher({ maxBytes: WASM_BATCH_MAX, hash: wasmXxh3, seal: wasmSealBatch, check: wasmCheckBatch });
  })();
  pending.catch(() => {
    pending = undefined;
  });
  return pending;
}

/** True once {@link loadXxh3Wasm} has completed. */
export function xxh3WasmReady(): boolean {
  return exports !== undefined;
}

/** The module's memory as bytes, grown to hold `bytes` from {@link BASE}. */
function memoryFor(x: Xxh3Exports, bytes: number): Uint8Array {
  const need = BASE + bytes;
  const have = x.memory.buffer.byteLength;
  if (need > have) x.memory.grow(Math.ceil((need - have) / PAGE));
  return new Uint8Array(x.memory.buffer);
}

/** XXH3-64 of `bytes` (≤ {@link WASM_BATCH_MAX}); the module must be loaded. */
export function wasmXxh3(bytes: Uint8Array): bigint {
  const x = exports as Xxh3Exports;
  memoryFor(x, bytes.length).set(bytes, BASE);
  return BigInt.asUintN(64, x.hash(BASE, bytes.length));
}

/**
 * Copies `batch` (header and `count` frames, already measured by the caller) into the module,
 * hashes its frames, and hashes the batch checksum's input: the six header fields, then every
 * frame checksum. Returns the frames' result (see the WAT `frames`) and leaves the batch
 * checksum in {@link LAST_BATCH_SUM}.
 */
function runFrames(x: Xxh3Exports, batch: Uint8Array, count: number, mode: number): number {
  const len = batch.length;
  const fields = BASE + len;
  const sums = fields + 44;
  const mem = memoryFor(x, len + 44 + count * 8);
  mem.set(batch, BASE);
  const result = x.frames(BASE + BATCH_HEADER, BASE + len, count, sums, mode);
  if (result !== -1) return result;
  mem.copyWithin(fields, BASE, BASE + 40);
  mem.copyWithin(fields + 40, BASE + 48, BASE + 52);
  LAST_BATCH_SUM[0] = x.hash(fields, 44 + count * 8);
  return -1;
}

function untiled(): IggyCodecError {
  return new IggyCodecError('message batch: frames do not tile the batch', { context: { iggyCode: 4036 } });
}

/** The batch checksum of the last {@link wasmSealBatch} or {@link wasmCheckBatch} (as an i64). */
const LAST_BATCH_SUM = new BigInt64Array(1);

/**
 * Writes every frame checksum and the batch checksum of `batch` in place. The caller has written
 * a well-formed batch of `count` frames and checked its size against {@link WASM_BATCH_MAX}.
 */
export function wasmSealBatch(batch: Uint8Array, count: number): void {
  const x = exports as Xxh3Exports;
  if (runFrames(x, batch, count, 0) !== -1) throw untiled(); // unreachable: the writer measured the frames
  // Only the checksums come back, from the list the module keeps for the batch checksum (eight
  // bytes per frame), not the whole batch: copying a 150 KB batch back cost more than this walk.
  const sums = new DataView(x.memory.buffer, BASE + batch.length + 44, count * 8);
  const out = new DataView(batch.buffer, batch.byteOffset, batch.length);
  let at = BATCH_HEADER;
  for (let i = 0; i < count; i++) {
    out.setUint32(at, sums.getUint32(i * 8, true), true);
    out.setUint32(at + 4, sums.getUint32(i * 8 + 4, true), true);
    at += FRAME_HEADER + out.getUint32(at + 32, true) + out.getUint32(at + 36, true);
  }
  out.setBigInt64(40, LAST_BATCH_SUM[0]!, true);
}

/**
 * Verifies every frame checksum and then the batch checksum of a batch whose structure the caller
 * has already checked. Returns -1 when all match, the index of the first frame whose checksum
 * differs, or `count` when only the batch checksum differs.
 */
export function wasmCheckBatch(batch: Uint8Array, count: number): number {
  const x = exports as Xxh3Exports;
  const result = runFrames(x, batch, count, 1);
  if (result >= 0) return result;
  if (result !== -1) throw untiled(); // unreachable: the caller checked the tiling
  const stored = new DataView(batch.buffer, batch.byteOffset, BATCH_HEADER).getBigInt64(40, true);
  return stored === LAST_BATCH_SUM[0] ? -1 : count;
}
