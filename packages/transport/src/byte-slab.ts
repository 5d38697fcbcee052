/**
 * Byte storage carved from shared slabs. Creating an ArrayBuffer costs an order of magnitude more
 * than a view into one, and logs and writers make one small payload per record. A slab is never
 * handed out twice: when it is full a new one is started, so every view can be kept (or passed to
 * a transport as immutable) for as long as its owner likes. A kept view keeps its slab alive,
 * which bounds the waste to one slab per retained view and, for consecutive records, far less.
 */

import { InvalidArgumentError } from './errors.js';

/** Hands out zero-filled views of shared slabs; large requests get their own buffer. */
export class ByteSlab {
  readonly #slabBytes: number;
  readonly #carveLimit: number;
  // Empty until the first carve, so an idle owner costs nothing.
  #slab = new Uint8Array(0);
  #used = 0;

  /**
   * @param slabBytes Size of each slab.
   * @param carveLimit Largest request served from a slab (1..slabBytes); larger ones get their own buffer.
   * @throws InvalidArgumentError when the sizes are not integers in range.
   */
  constructor(slabBytes: number, carveLimit: number) {
    if (!Number.isSafeInteger(slabBytes) || slabBytes < 1) throw new InvalidArgumentError('slabBytes must be a positive integer');
    if (!Number.isSafeInteger(carveLimit) || carveLimit < 1 || carveLimit > slabBytes) {
      throw new InvalidArgumentError('carveLimit must be an integer from 1 to slabBytes');
    }
    this.#slabBytes = slabBytes;
    this.#carveLimit = carveLimit;
  }

  /** A zero-filled Uint8Array of `size` bytes that this slab will never hand out again. */
  take(size: number): Uint8Array {
    if (size > this.#carveLimit) return new Uint8Array(size);
    // byteLength 0 also covers a slab someone detached (transferred) despite the contract.
    if (this.#used + size > this.#slab.byteLength || this.#slab.byteLength === 0) {
      this.#slab = new Uint8Array(this.#slabBytes);
      this.#used = 0;
    }
    const start = this.#used;
    this.#used = start + size;
    // A view built directly costs about half of `subarray`, which looks up a species constructor.
    return new Uint8Array(this.#slab.buffer, start, size);
  }
}
