/**
 * While a partition is recovered, the newest batches keep their bytes within the partition's
 * cache budget and older ones drop theirs as soon as newer ones arrive, so opening a large
 * partition never holds all of it in memory.
 */

import type { StoredBatch } from '../log/stored-batch.js';

/**
 * The newest recovered batches that keep their bytes, within a byte budget; older ones drop
 * theirs (their frame tables are built already, so a partial poll of them needs no read).
 */
export class RecordWindow {
  readonly #budget: number;
  readonly #batches: StoredBatch[] = [];
  #head = 0;
  #bytes = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  /** Adds the next recovered batch (a view into its segment's contents). */
  add(b: StoredBatch): void {
    this.#batches.push(b);
    this.#bytes += b.length;
    // The newest batch always keeps its bytes, as the partition's own cache does.
    while (this.#bytes > this.#budget && this.#head < this.#batches.length - 1) {
      const old = this.#batches[this.#head++] as StoredBatch;
      this.#bytes -= old.length;
      old.bytes = undefined;
    }
  }

  /** Copies the bytes still held out of the segment contents they view. */
  detach(): void {
    for (let i = this.#head; i < this.#batches.length; i++) {
      const b = this.#batches[i] as StoredBatch;
      if (b.bytes !== undefined) b.bytes = b.bytes.slice();
    }
  }
}
