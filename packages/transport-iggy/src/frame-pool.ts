/**
 * Reused buffers for large SendMessages frames (both protocols). A batch of 1,000 × 100 B is a
 * frame of about 150 KB (VSR; 180 KB classic); allocating one that size per send (and a second one to put the header in front of the
 * body) cost 130–550 µs of CPU each on our test machine, more than encoding the batch, because
 * buffers that large come fresh from the operating system and are zeroed page by page. A send
 * takes a buffer, the body is encoded into it behind room for the header, and the buffer comes
 * back only after the server answered the request: by then the socket has handed every byte of
 * the frame to the kernel, so nothing still reads it. A request that failed, timed out or was
 * aborted never gives its buffer back (its bytes may still sit in the socket's queue).
 */

/** Frames below this size are allocated normally: small allocations are cheap. */
const POOL_FROM_BYTES = 16 * 1024;
/** Frames above this size are not kept, so an occasional huge send does not pin its memory. */
const POOL_UP_TO_BYTES = 4 * 1024 * 1024;
/** Buffers kept at most (one per concurrent large send is enough). */
const POOL_SIZE = 4;

/** A small free list of large frame buffers. */
export class FramePool {
  readonly #free: Uint8Array[] = [];

  /** A buffer of at least `bytes` bytes, reused when one is free (contents undefined). */
  take(bytes: number): Uint8Array {
    if (bytes >= POOL_FROM_BYTES && bytes <= POOL_UP_TO_BYTES) {
      for (let i = 0; i < this.#free.length; i++) {
        const b = this.#free[i] as Uint8Array;
        if (b.length >= bytes) {
          this.#free.splice(i, 1);
          return b;
        }
      }
      // Rounded up so that batches of slightly different sizes reuse each other's buffers.
      return new Uint8Array(Math.min(POOL_UP_TO_BYTES, Math.ceil((bytes * 5) / 4 / 4096) * 4096));
    }
    return new Uint8Array(bytes);
  }

  /** Returns a buffer from {@link take} once nothing refers to its bytes any more. */
  give(buffer: Uint8Array): void {
    if (buffer.length < POOL_FROM_BYTES || buffer.length > POOL_UP_TO_BYTES) return;
    if (this.#free.length >= POOL_SIZE) {
      // Keep the larger buffers: they serve every smaller frame too.
      let smallest = 0;
      for (let i = 1; i < this.#free.length; i++) if ((this.#free[i] as Uint8Array).length < (this.#free[smallest] as Uint8Array).length) smallest = i;
      if ((this.#free[smallest] as Uint8Array).length >= buffer.length) return;
      this.#free.splice(smallest, 1);
    }
    this.#free.push(buffer);
  }

  /** Buffers currently free (for tests). */
  get free(): number {
    return this.#free.length;
  }
}
