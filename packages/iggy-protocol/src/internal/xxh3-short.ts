/**
 * XXH3-64 (seed 0, default secret) of inputs up to 240 bytes, in plain JavaScript on 32-bit
 * halves. Every VSR frame of a small message is hashed on its own, and for such inputs the cost
 * of calling into hash-wasm (init, copy into WebAssembly memory, digest into a fresh array) was
 * most of the cost: about 0.6 µs per 140-byte frame against about 0.25 µs here (medians, loaded
 * 2-core machine). Longer inputs take hash-wasm, where the call cost is amortised. A differential
 * test holds this code to hash-wasm for every length from 0 to 256 and for random, unaligned
 * inputs; the golden-vector tests cover it through the batch codecs.
 *
 * The result lands in {@link XXH3_OUT} (the two u32 halves of the digest) so that the hot path
 * allocates nothing; read it right after the call.
 */

/** XXH3_kSecret, bytes 0..135: the part the ≤ 240-byte paths read (`XXH3_SECRET_SIZE_MIN`). */
const SECRET = new Uint8Array([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3,
]);

/** Longest input this module hashes (`XXH3_MIDSIZE_MAX`). */
export const XXH3_SHORT_MAX = 240;

// Secret words read as little-endian u32 at every byte offset, so the mixers index them directly.
const SEC32 = new Uint32Array(SECRET.length - 3);
for (let i = 0; i < SEC32.length; i++) SEC32[i] = (SECRET[i]! | (SECRET[i + 1]! << 8) | (SECRET[i + 2]! << 16) | (SECRET[i + 3]! << 24)) >>> 0;

const TWO32 = 4294967296;
// PRIME64_1, PRIME64_2, PRIME64_3, PRIME_MX1, PRIME_MX2 as (hi, lo) u32 halves.
const P1H = 0x9e3779b1, P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d, P2L = 0x27d4eb4f;
const P3H = 0x165667b1, P3L = 0x9e3779f9;
const MX1H = 0x16566791, MX1L = 0x9e3779f9;
const MX2H = 0x9fb21c65, MX2L = 0x1e98df25;

/**
 * The digest of the last {@link xxh3Short} call: `[high u32, low u32]`. A typed array rather than
 * module variables, because a u32 above 2^31 stored in a variable is boxed (an allocation per
 * write), while a typed-array element is not.
 */
export const XXH3_OUT: Uint32Array = new Uint32Array(2);

// Scratch state, same reason: [0, 1] = product (hi, lo), [2, 3] = accumulator (hi, lo).
const S = new Uint32Array(4);

/** High u32 of the 64-bit product of two u32 (the low half is `Math.imul(a, b) >>> 0`). */
function mulHi(a: number, b: number): number {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  // Every partial sum stays below 2^32, so the shifts below are exact.
  const mid1 = a1 * b0 + ((a0 * b0) >>> 16);
  const mid2 = a0 * b1 + (mid1 & 0xffff);
  return (a1 * b1 + (mid1 >>> 16) + (mid2 >>> 16)) >>> 0;
}

/** Low 64 bits of (ah, al) × (bh, bl) into S[0], S[1]. */
function mul64(ah: number, al: number, bh: number, bl: number): void {
  S[0] = mulHi(al, bl) + Math.imul(al, bh) + Math.imul(ah, bl);
  S[1] = Math.imul(al, bl);
}

/** The 128-bit product of (ah, al) × (bh, bl) folded by xoring its halves, into S[0], S[1]. */
function mul128Fold(ah: number, al: number, bh: number, bl: number): void {
  const w0 = Math.imul(al, bl) >>> 0;
  const t1 = mulHi(al, bl) + (Math.imul(al, bh) >>> 0) + (Math.imul(ah, bl) >>> 0);
  const w1 = t1 >>> 0;
  const t2 = mulHi(al, bh) + mulHi(ah, bl) + (Math.imul(ah, bh) >>> 0) + (t1 - w1) / TWO32;
  const w2 = t2 >>> 0;
  const w3 = mulHi(ah, bh) + (t2 - w2) / TWO32;
  S[0] = w1 ^ w3;
  S[1] = w0 ^ w2;
}

// A view of the last input's buffer: one aligned-or-not load per word instead of four byte loads,
// and the send path hashes a thousand frames of one buffer in a row, so it is rarely rebuilt (it
// keeps that buffer reachable until another one is hashed).
let viewOf: Uint8Array | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));

function viewFor(b: Uint8Array): DataView {
  if (b !== viewOf) {
    viewOf = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  return view;
}

function u32At(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** accumulator += (h, l). */
function accAdd(h: number, l: number): void {
  const lo = S[3]! + l;
  S[3] = lo;
  S[2] = S[2]! + h + (lo > 0xffffffff ? 1 : 0);
}

/** accumulator += mix16B(input + i, secret + s) with seed 0. */
function mix16(v: DataView, i: number, s: number): void {
  mul128Fold(v.getUint32(i + 4, true) ^ SEC32[s + 4]!, v.getUint32(i, true) ^ SEC32[s]!, v.getUint32(i + 12, true) ^ SEC32[s + 12]!, v.getUint32(i + 8, true) ^ SEC32[s + 8]!);
  accAdd(S[0]!, S[1]!);
}

/** h ^= h >> 37; h *= PRIME_MX1; h ^= h >> 32, into XXH3_OUT. */
function xxh3Avalanche(h: number, l: number): void {
  mul64(h, (l ^ (h >>> 5)) >>> 0, MX1H, MX1L);
  XXH3_OUT[0] = S[0]!;
  XXH3_OUT[1] = S[1]! ^ S[0]!;
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
