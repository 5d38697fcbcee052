/**
 * Where encoders put their output when the caller supplies no `allocate`: consecutive encodings are
 * carved out of one shared chunk, so an encode costs a view object instead of a fresh ArrayBuffer
 * (whose malloc, zero-fill and later sweep were about half of the time of a small encode). Carved
 * regions are never handed out twice or written again, so a result stays valid for as long as the
 * caller keeps it; the price is that a kept result keeps its whole chunk alive.
 * @internal
 */

/** Bytes per chunk: many small envelopes per chunk, and a few 8 KiB responses. */
export const SLAB_CHUNK_BYTES: number = 64 * 1024;

/**
 * Spare room given to a chunk that is started for an output larger than {@link SLAB_CHUNK_BYTES}:
 * room for the fields that follow a large body (signature, at most a few hundred bytes) so such an
 * output rarely moves twice.
 */
export const SLAB_TAIL_BYTES = 1024;

let chunk: Uint8Array = new Uint8Array(SLAB_CHUNK_BYTES);
let used = 0;

/** The current chunk (call before {@link slabOffset}). */
export function slabChunk(): Uint8Array {
  // A caller may transfer a result's buffer despite the contract, which detaches the whole chunk
  // (length 0): start over rather than write into it.
  if (chunk.length === 0) {
    chunk = new Uint8Array(SLAB_CHUNK_BYTES);
    used = 0;
  }
  return chunk;
}

/** First free offset of the current chunk. */
export function slabOffset(): number {
  return used;
}

/**
 * Records that `[start, end)` of `buf` now belongs to a caller and makes `buf` the current chunk
 * (a writer that outgrew the old chunk moved to a new one, whose tail later encodings may use).
 */
export function slabCommit(buf: Uint8Array, end: number): void {
  chunk = buf;
  used = end;
}

/** A fresh chunk with room for at least `bytes` bytes. */
export function slabFreshChunk(bytes: number): Uint8Array {
  return new Uint8Array(bytes <= SLAB_CHUNK_BYTES ? SLAB_CHUNK_BYTES : bytes + SLAB_TAIL_BYTES);
}
