/**
 * The streaming XXH3-64 (seed 0): the stripe loop of `xxh3-long.ts` over input that arrives in
 * parts, giving the same digest as hashing the concatenation at once. A stripe is taken only
 * once at least one byte is known to follow it, because the one-shot form leaves the input's
 * final bytes to the last-stripe step; that is also why a block is scrambled as soon as its 16th
 * stripe is taken. Inputs of up to 240 bytes in total stay buffered and take the short paths.
 */

import { viewFor, XXH3_SHORT_MAX, xxh3Short } from './xxh3-short.js';
import { accumulateStripe, initAcc, LAST_STRIPE_SECRET, mergeAccs, scrambleAcc, STRIPE, STRIPES_PER_BLOCK } from './xxh3-long.js';

/** Bytes buffered before stripes are taken: above {@link XXH3_SHORT_MAX}, a whole number of stripes. */
const BUFFER = 256;

// The digest works on a copy of the accumulators, so a stream can be digested and fed again.
const DIGEST_ACC = new Uint32Array(16);
const LAST = new Uint8Array(STRIPE);
const LAST_VIEW = new DataView(LAST.buffer);

/** The state of one streaming XXH3-64; the digest lands in `XXH3_OUT`. */
export class Xxh3StreamState {
  private readonly acc = new Uint32Array(16);
  private readonly buffer = new Uint8Array(BUFFER);
  private readonly bufferView = new DataView(this.buffer.buffer);
  /** The 64 bytes before the buffer's first byte, once stripes have been taken. */
  private readonly previous = new Uint8Array(STRIPE);
  private buffered = 0;
  private total = 0;
  private stripesInBlock = 0;

  constructor() {
    initAcc(this.acc);
  }

  /** Feeds `bytes`. */
  update(bytes: Uint8Array): void {
    const n = bytes.length;
    this.total += n;
    if (this.buffered + n <= BUFFER) {
      this.buffer.set(bytes, this.buffered);
      this.buffered += n;
      return;
    }
    let i = 0;
    if (this.buffered > 0) {
      // Fill the buffer and take all its stripes: more input follows it.
      i = BUFFER - this.buffered;
      this.buffer.set(bytes.subarray(0, i), this.buffered);
      this.take(this.acc, this.bufferView, 0, BUFFER / STRIPE);
      this.previous.set(this.buffer.subarray(BUFFER - STRIPE));
      this.buffered = 0;
    }
    if (n - i > BUFFER) {
      // Stripes straight from the input, keeping 1..64 bytes back for the buffer.
      const stripes = Math.floor((n - i - 1) / STRIPE);
      this.take(this.acc, viewFor(bytes), i, stripes);
      i += stripes * STRIPE;
      this.previous.set(bytes.subarray(i - STRIPE, i));
    }
    this.buffer.set(bytes.subarray(i), 0);
    this.buffered = n - i;
  }

  /** Writes the digest of everything fed so far to `XXH3_OUT`; the stream stays usable. */
  digest(): void {
    if (this.total <= XXH3_SHORT_MAX) {
      xxh3Short(this.buffer, 0, this.total);
      return;
    }
    const acc = DIGEST_ACC;
    acc.set(this.acc);
    const inBlock = this.stripesInBlock;
    this.take(acc, this.bufferView, 0, Math.floor((this.buffered - 1) / STRIPE));
    this.stripesInBlock = inBlock;
    if (this.buffered >= STRIPE) {
      accumulateStripe(acc, this.bufferView, this.buffered - STRIPE, LAST_STRIPE_SECRET);
    } else {
      // The final stripe reaches back into bytes already taken.
      const back = STRIPE - this.buffered;
      LAST.set(this.previous.subarray(STRIPE - back), 0);
      LAST.set(this.buffer.subarray(0, this.buffered), back);
      accumulateStripe(acc, LAST_VIEW, 0, LAST_STRIPE_SECRET);
    }
    mergeAccs(acc, this.total);
  }

  /** Takes `stripes` stripes of `v` from byte `at` into `acc`, scrambling at each block's end. */
  private take(acc: Uint32Array, v: DataView, at: number, stripes: number): void {
    for (let k = 0; k < stripes; k++) {
      accumulateStripe(acc, v, at + k * STRIPE, this.stripesInBlock * 8);
      if (++this.stripesInBlock === STRIPES_PER_BLOCK) {
        scrambleAcc(acc);
        this.stripesInBlock = 0;
      }
    }
  }
}
