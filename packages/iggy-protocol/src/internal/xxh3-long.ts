/**
 * XXH3-64 (seed 0, default secret) of inputs above 240 bytes: the stripe loop. Eight 64-bit
 * accumulators take 64-byte stripes; every 16 stripes (a 1,024-byte block) they are scrambled;
 * the last stripe of the input is always the final 64 bytes (it may overlap stripes already
 * taken), and the accumulators are merged and avalanched. All on u32 halves with Math.imul, no
 * BigInt: the batch checksum of a 1,000-message VSR batch is an 8 KB input on the send path.
 *
 * The pieces are exported for the streaming form (`xxh3-stream.ts`), which runs the same loop
 * over input that arrives in parts.
 */

import { SEC32 } from './xxh3-secret.js';
import { accAdd, mul128Fold, mul64, mulHi, S, xxh3Avalanche } from './u64-math.js';

/** Bytes per stripe. */
export const STRIPE = 64;
/** Stripes per block: (secret size 192 − stripe 64) / 8. */
export const STRIPES_PER_BLOCK = 16;
/** Where the secret of the final stripe starts (`XXH_SECRET_LASTACC_START` = 7 before the end − 64). */
export const LAST_STRIPE_SECRET = 121;
const BLOCK = STRIPE * STRIPES_PER_BLOCK;
const SCRAMBLE_SECRET = 128;
const MERGE_SECRET = 11;
const PRIME32_1 = 0x9e3779b1;
const P1H = 0x9e3779b1, P1L = 0x85ebca87;
const TWO32 = 4294967296;

/**
 * XXH3_INIT_ACC as [lo, hi] pairs: PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4,
 * PRIME32_2, PRIME64_5, PRIME32_1.
 */
const INIT_ACC = new Uint32Array([
  0xc2b2ae3d, 0, 0x85ebca87, 0x9e3779b1, 0x27d4eb4f, 0xc2b2ae3d, 0x9e3779f9, 0x165667b1,
  0xc2b2ae63, 0x85ebca77, 0x85ebca77, 0, 0x165667c5, 0x27d4eb2f, 0x9e3779b1, 0,
]);

/** Resets `acc` (16 u32: eight accumulators as [lo, hi]) to the initial state. */
export function initAcc(acc: Uint32Array): void {
  acc.set(INIT_ACC);
}

/**
 * XXH3_accumulate_512: one stripe of `v` at byte `at` with the secret at `s`. Each lane adds
 * lo32(key) × hi32(key) of (data ^ secret) to its own accumulator and the raw data to its pair's.
 */
export function accumulateStripe(acc: Uint32Array, v: DataView, at: number, s: number): void {
  for (let lane = 0; lane < 8; lane++) {
    const dl = v.getUint32(at + 8 * lane, true);
    const dh = v.getUint32(at + 8 * lane + 4, true);
    const kl = dl ^ SEC32[s + 8 * lane]!;
    const kh = dh ^ SEC32[s + 8 * lane + 4]!;
    const j = (lane ^ 1) << 1;
    let lo = acc[j]! + dl;
    acc[j] = lo;
    acc[j + 1] = acc[j + 1]! + dh + (lo > 0xffffffff ? 1 : 0);
    const i = lane << 1;
    lo = acc[i]! + (Math.imul(kl, kh) >>> 0);
    acc[i] = lo;
    acc[i + 1] = acc[i + 1]! + mulHi(kl, kh) + (lo > 0xffffffff ? 1 : 0);
  }
}

/** XXH3_scrambleAcc: acc ^= acc >> 47; acc ^= secret; acc *= PRIME32_1, for every lane. */
export function scrambleAcc(acc: Uint32Array): void {
  for (let lane = 0; lane < 8; lane++) {
    const i = lane << 1;
    const h = acc[i + 1]!;
    const l = (acc[i]! ^ (h >>> 15) ^ SEC32[SCRAMBLE_SECRET + 8 * lane]!) >>> 0;
    const hx = (h ^ SEC32[SCRAMBLE_SECRET + 8 * lane + 4]!) >>> 0;
    acc[i] = Math.imul(l, PRIME32_1);
    acc[i + 1] = mulHi(l, PRIME32_1) + Math.imul(hx, PRIME32_1);
  }
}

/**
 * XXH3_mergeAccs and the final avalanche for an input of `totalLength` bytes, into `XXH3_OUT`.
 * `totalLength` may exceed 2^32 (a long stream), so its high half is split off exactly.
 */
export function mergeAccs(acc: Uint32Array, totalLength: number): void {
  const lenLo = totalLength >>> 0;
  mul64((totalLength - lenLo) / TWO32, lenLo, P1H, P1L);
  S[2] = S[0]!;
  S[3] = S[1]!;
  for (let k = 0; k < 4; k++) {
    const s = MERGE_SECRET + 16 * k;
    const i = k << 2;
    mul128Fold(acc[i + 1]! ^ SEC32[s + 4]!, acc[i]! ^ SEC32[s]!, acc[i + 3]! ^ SEC32[s + 12]!, acc[i + 2]! ^ SEC32[s + 8]!);
    accAdd(S[0]!, S[1]!);
  }
  xxh3Avalanche(S[2]!, S[3]!);
}

const ACC = new Uint32Array(16);

/**
 * XXH3-64 of `len` (> 240) bytes of `v` from byte `start`, into `XXH3_OUT`. The caller checks
 * the bounds.
 */
export function xxh3Long(v: DataView, start: number, len: number): void {
  const acc = ACC;
  initAcc(acc);
  // The last byte always belongs to the final stripe, hence len − 1.
  const blocks = Math.floor((len - 1) / BLOCK);
  let at = start;
  for (let b = 0; b < blocks; b++) {
    for (let n = 0; n < STRIPES_PER_BLOCK; n++) accumulateStripe(acc, v, at + n * STRIPE, n * 8);
    scrambleAcc(acc);
    at += BLOCK;
  }
  const stripes = Math.floor((len - 1 - blocks * BLOCK) / STRIPE);
  for (let n = 0; n < stripes; n++) accumulateStripe(acc, v, at + n * STRIPE, n * 8);
  accumulateStripe(acc, v, start + len - STRIPE, LAST_STRIPE_SECRET);
  mergeAccs(acc, len);
}
