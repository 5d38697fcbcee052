/**
 * Where a partition keeps the bytes of the small records it stores: consecutive records are
 * copied into shared slabs rather than each into an allocation of its own.
 *
 * Why: a stored record lives as long as the partition keeps it, so every small append used to
 * leave one more long-lived `ArrayBuffer` behind (an allocation of its own, and an entry the
 * garbage collector walks on every full collection). With slabs a partition holds a handful of
 * buffers instead of one per append, and the request frame a record arrived in is garbage once
 * the append is done.
 *
 * Records of {@link IN_PLACE_BYTES} or more are kept in the buffer they are handed over in (for
 * a VSR append, the request frame, which the frame splitter already copied out of the socket's
 * chunks): measured on the append benchmark, copying 150 KB batches into slabs added page faults
 * (the frames' own memory was not reused soon enough to stay warm) and cost more than it saved.
 *
 * A slab is released when no record in it is referenced any more. Partitions drop records
 * oldest first (expiry, cache trimming, segment deletion), so the memory held for dropped
 * records is bounded by about one slab per partition. Slabs grow from {@link FIRST_SLAB_BYTES}
 * by doubling up to {@link MAX_SLAB_BYTES}, so a partition that stores little reserves little.
 */

/** Records at least this large are kept as handed over, not copied. */
export const IN_PLACE_BYTES: number = 4096;
/** The first slab of a partition. */
export const FIRST_SLAB_BYTES: number = 4 * 1024;
/** The largest slab. */
export const MAX_SLAB_BYTES: number = 1024 * 1024;

/** Copies records into shared slabs (see the file comment). One per partition. */
export class RecordArena {
  #slab: Uint8Array | undefined;
  #used = 0;
  #nextSize = FIRST_SLAB_BYTES;

  /**
   * The bytes to store for a record the caller hands over: a copy in a slab (a view; writing to
   * it, as stamping does, touches no other record), or `bytes` itself from
   * {@link IN_PLACE_BYTES} on.
   */
  keep(bytes: Uint8Array): Uint8Array {
    const n = bytes.length;
    if (n >= IN_PLACE_BYTES) return bytes;
    let slab = this.#slab;
    if (slab === undefined || slab.length - this.#used < n) {
      slab = new Uint8Array(this.#nextSize);
      this.#nextSize = Math.min(this.#nextSize * 2, MAX_SLAB_BYTES);
      this.#slab = slab;
      this.#used = 0;
    }
    const at = this.#used;
    slab.set(bytes, at);
    // 8-byte alignment keeps every record's u64 fields aligned within the slab.
    this.#used = (at + n + 7) & ~7;
    return slab.subarray(at, at + n);
  }

  /** Forgets the current slab (purge): later records start a new one, and the old one is freed with its records. */
  reset(): void {
    this.#slab = undefined;
    this.#used = 0;
    this.#nextSize = FIRST_SLAB_BYTES;
  }
}
