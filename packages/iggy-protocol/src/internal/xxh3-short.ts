/**
 * XXH3-64 (seed 0, default secret) of inputs up to 240 bytes (the 0, 1-3, 4-8, 9-16, 17-128 and
 * 129-240 length classes), in plain JavaScript on 32-bit halves. Every VSR frame of a small
 * message is hashed on its own, so this is the hot path of the send and admission paths: it
 * allocates nothing, and the digest lands in {@link XXH3_OUT} (the two u32 halves); read it right
 * after the call. Longer inputs take the stripe loop of `xxh3-long.ts`. Differential tests hold
 * both to hash-wasm over every length class and boundary.
 */

import { SEC32 } from './xxh3-secret.js';
import { accAdd, mul128Fold, mul64, S, XXH3_OUT, xxh3Avalanche } from './u64-math.js';

/** Longest input this module hashes (`XXH3_MIDSIZE_MAX`). */
export const XXH3_SHORT_MAX = 240;

// PRIME64_1, PRIME64_2, PRIME64_3, PRIME_MX2 as (hi, lo) u32 halves.
const P1H = 0x9e3779b1, P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d, P2L = 0x27d4eb4f;
const P3H = 0x165667b1, P3L = 0x9e3779f9;
const MX2H = 0x9fb21c65, MX2L = 0x1e98df25;

// A view of the last input's buffer: one aligned-or-not load per word instead of four byte loads,
// and the send path hashes a thousand frames of one buffer in a row, so it is rarely rebuilt (it
// keeps that buffer reachable until another one is hashed). The long path shares it.
let viewOf: Uint8Array | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));

/** A DataView over `b`, reused while the same array is hashed again. */
export function viewFor(b: Uint8Array): DataView {
  if (b !== viewOf) {
    viewOf = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  return view;
}

function u32At(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** accumulator += mix16B(input + i, secret + s) with seed 0. */
function mix16(v: DataView, i: number, s: number): void {
  mul128Fold(v.getUint32(i + 4, true) ^ SEC32[s + 4]!, v.getUint32(i, true) ^ SEC32[s]!, v.getUint32(i + 12, true) ^ SEC32[s + 12]!, v.getUint32(i + 8, true) ^ SEC32[s + 8]!);
  accAdd(S[0]!, S[1]!);
}

/** XXH64_avalanche of (h, l), into XXH3_OUT. */
function xxh64Avalanche(h: number, l: number): void {
  mul64(h, (l ^ (h >>> 1)) >>> 0, P2H, P2L); // h >> 33 reaches only the low half
  const mh = S[0]!, ml = S[1]!;
  mul64((mh ^ (mh >>> 29)) >>> 0, (ml ^ ((mh << 3) | (ml >>> 29))) >>> 0, P3H, P3L);
  XXH3_OUT[0] = S[0]!;
  XXH3_OUT[1] = S[1]! ^ S[0]!;
}

/** XXH3_rrmxmx of (h, l) for an input of `len` bytes, into XXH3_OUT. */
function rrmxmx(h: number, l: number, len: number): void {
  // rotl 49 swaps the halves and rotates by 17; rotl 24 stays within them.
  const r49h = (l << 17) | (h >>> 15);
  const r49l = (h << 17) | (l >>> 15);
  const r24h = (h << 24) | (l >>> 8);
  const r24l = (l << 24) | (h >>> 8);
  mul64((h ^ r49h ^ r24h) >>> 0, (l ^ r49l ^ r24l) >>> 0, MX2H, MX2L);
  h = S[0]!;
  // h64 ^= (h64 >> 35) + len: (h >>> 3) + len < 2^32, so only the low half changes.
  l = (S[1]! ^ ((h >>> 3) + len)) >>> 0;
  mul64(h, l, MX2H, MX2L);
  h = S[0]!;
  l = S[1]!;
  XXH3_OUT[0] = h ^ (h >>> 28);
  XXH3_OUT[1] = l ^ ((l >>> 28) | (h << 4));
}

/**
 * XXH3-64 of `b[start .. start + len]` (len ≤ {@link XXH3_SHORT_MAX}) into {@link XXH3_OUT}.
 * The caller checks the bounds.
 */
export function xxh3Short(b: Uint8Array, start: number, len: number): void {
  if (len > 16) {
    const v = viewFor(b);
    mul64(0, len, P1H, P1L);
    S[2] = S[0]!;
    S[3] = S[1]!;
    const end = start + len;
    if (len <= 128) {
      if (len > 32) {
        if (len > 64) {
          if (len > 96) {
            mix16(v, start + 48, 96);
            mix16(v, end - 64, 112);
          }
          mix16(v, start + 32, 64);
          mix16(v, end - 48, 80);
        }
        mix16(v, start + 16, 32);
        mix16(v, end - 32, 48);
      }
      mix16(v, start, 0);
      mix16(v, end - 16, 16);
      xxh3Avalanche(S[2]!, S[3]!);
      return;
    }
    for (let i = 0; i < 8; i++) mix16(v, start + 16 * i, 16 * i);
    xxh3Avalanche(S[2]!, S[3]!);
    S[2] = XXH3_OUT[0]!;
    S[3] = XXH3_OUT[1]!;
    const rounds = len >>> 4;
    for (let i = 8; i < rounds; i++) mix16(v, start + 16 * i, 16 * (i - 8) + 3);
    mix16(v, end - 16, 119);
    xxh3Avalanche(S[2]!, S[3]!);
    return;
  }
  if (len > 8) {
    // bitflip1 = secret[24..32] ^ secret[32..40]; bitflip2 = secret[40..48] ^ secret[48..56]
    const loH = u32At(b, start + 4) ^ SEC32[28]! ^ SEC32[36]!;
    const loL = u32At(b, start) ^ SEC32[24]! ^ SEC32[32]!;
    const hiH = u32At(b, start + len - 4) ^ SEC32[44]! ^ SEC32[52]!;
    const hiL = u32At(b, start + len - 8) ^ SEC32[40]! ^ SEC32[48]!;
    mul128Fold(loH >>> 0, loL >>> 0, hiH >>> 0, hiL >>> 0);
    const fh = S[0]!, fl = S[1]!;
    // acc = len + swap64(input_lo) + input_hi + fold
    const swH = ((loL & 0xff) << 24 | (loL & 0xff00) << 8 | (loL >>> 8) & 0xff00 | loL >>> 24) >>> 0;
    const swL = ((loH & 0xff) << 24 | (loH & 0xff00) << 8 | (loH >>> 8) & 0xff00 | loH >>> 24) >>> 0;
    S[2] = 0;
    S[3] = len;
    accAdd(swH, swL);
    accAdd(hiH >>> 0, hiL >>> 0);
    accAdd(fh, fl);
    xxh3Avalanche(S[2]!, S[3]!);
    return;
  }
  if (len >= 4) {
    // input64 = readLE32(end - 4) + (readLE32(start) << 32), xor bitflip = secret[8..16] ^ secret[16..24]
    const h = (u32At(b, start) ^ SEC32[12]! ^ SEC32[20]!) >>> 0;
    const l = (u32At(b, start + len - 4) ^ SEC32[8]! ^ SEC32[16]!) >>> 0;
    rrmxmx(h, l, len);
    return;
  }
  if (len > 0) {
    const combined = ((b[start]! << 16) | (b[start + (len >>> 1)]! << 24) | b[start + len - 1]! | (len << 8)) >>> 0;
    xxh64Avalanche(0, (combined ^ SEC32[0]! ^ SEC32[4]!) >>> 0);
    return;
  }
  xxh64Avalanche((SEC32[60]! ^ SEC32[68]!) >>> 0, (SEC32[56]! ^ SEC32[64]!) >>> 0);
}
