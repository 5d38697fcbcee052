/**
 * 64-bit arithmetic on pairs of u32 halves for the JavaScript XXH3, without BigInt: a BigInt
 * allocates per operation, which would cost more than the hash itself. Results go to the
 * scratch array {@link S} rather than being returned as objects, for the same reason; a u32 above
 * 2^31 kept in a module variable is boxed (an allocation per write), a typed-array element is not.
 */

/** Scratch: [0, 1] = last product or fold (hi, lo), [2, 3] = the running accumulator (hi, lo). */
export const S: Uint32Array = new Uint32Array(4);

/** The digest of the last XXH3 computation: `[high u32, low u32]`. Read it right after the call. */
export const XXH3_OUT: Uint32Array = new Uint32Array(2);

const TWO32 = 4294967296;
const INV_TWO32 = 1 / TWO32;

// PRIME_MX1 as (hi, lo) halves.
const MX1H = 0x16566791, MX1L = 0x9e3779f9;

/**
 * High u32 of the 64-bit product of two u32. The double product is within 2^12 of the exact one
 * and the exact one minus its low half is a multiple of 2^32, so rounding recovers the high half
 * exactly: one float multiply instead of four 16-bit partial products.
 */
export function mulHi(a: number, b: number): number {
  // Callers pass xor results, which are signed int32.
  a >>>= 0;
  b >>>= 0;
  return ((a * b - (Math.imul(a, b) >>> 0)) * INV_TWO32 + 0.5) >>> 0;
}

/** Low 64 bits of (ah, al) × (bh, bl) into S[0], S[1]. */
export function mul64(ah: number, al: number, bh: number, bl: number): void {
  S[0] = mulHi(al, bl) + Math.imul(al, bh) + Math.imul(ah, bl);
  S[1] = Math.imul(al, bl);
}

/** XXH3_mul128_fold64: the 128-bit product of (ah, al) × (bh, bl), its halves xored, into S[0], S[1]. */
export function mul128Fold(ah: number, al: number, bh: number, bl: number): void {
  const w0 = Math.imul(al, bl) >>> 0;
  const t1 = mulHi(al, bl) + (Math.imul(al, bh) >>> 0) + (Math.imul(ah, bl) >>> 0);
  const w1 = t1 >>> 0;
  const t2 = mulHi(al, bh) + mulHi(ah, bl) + (Math.imul(ah, bh) >>> 0) + (t1 - w1) / TWO32;
  const w2 = t2 >>> 0;
  const w3 = mulHi(ah, bh) + (t2 - w2) / TWO32;
  S[0] = w1 ^ w3;
  S[1] = w0 ^ w2;
}

/** accumulator (S[2], S[3]) += (h, l). */
export function accAdd(h: number, l: number): void {
  const lo = S[3]! + l;
  S[3] = lo;
  S[2] = S[2]! + h + (lo > 0xffffffff ? 1 : 0);
}

/** XXH3_avalanche: h ^= h >> 37; h *= PRIME_MX1; h ^= h >> 32, into {@link XXH3_OUT}. */
export function xxh3Avalanche(h: number, l: number): void {
  mul64(h, (l ^ (h >>> 5)) >>> 0, MX1H, MX1L);
  XXH3_OUT[0] = S[0]!;
  XXH3_OUT[1] = S[1]! ^ S[0]!;
}
