/**
 * XXH32 in plain TypeScript. Key routing needs it on every keyed append, and the packages that
 * run in browsers and edge runtimes may not compile WebAssembly at run time (Cloudflare Workers
 * and some CSP settings forbid it), so this replaces hash-wasm here. A test holds it to hash-wasm
 * and to the Iggy vectors.
 */

const PRIME1 = 0x9e3779b1;
const PRIME2 = 0x85ebca77;
const PRIME3 = 0xc2b2ae3d;
const PRIME4 = 0x27d4eb2f;
const PRIME5 = 0x165667b1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

// Little-endian words read by hand: a DataView per call would cost more than the hash of a short key.
function word(b: Uint8Array, i: number): number {
  return ((b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24)) >>> 0;
}

function round(acc: number, lane: number): number {
  return Math.imul(rotl((acc + Math.imul(lane, PRIME2)) | 0, 13), PRIME1);
}

/**
 * XXH32 of `bytes` with `seed` (default 0), as an unsigned 32-bit number. Synchronous and
 * allocation-free; any length is accepted.
 */
export function xxh32Bytes(bytes: Uint8Array, seed = 0): number {
  const length = bytes.length;
  let i = 0;
  let h: number;
  if (length >= 16) {
    let v1 = (seed + PRIME1 + PRIME2) | 0;
    let v2 = (seed + PRIME2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - PRIME1) | 0;
    const limit = length - 16;
    while (i <= limit) {
      v1 = round(v1, word(bytes, i));
      v2 = round(v2, word(bytes, i + 4));
      v3 = round(v3, word(bytes, i + 8));
      v4 = round(v4, word(bytes, i + 12));
      i += 16;
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + PRIME5) | 0;
  }
  h = (h + length) | 0;
  while (i + 4 <= length) {
    h = Math.imul(rotl((h + Math.imul(word(bytes, i), PRIME3)) | 0, 17), PRIME4);
    i += 4;
  }
  while (i < length) {
    h = Math.imul(rotl((h + Math.imul(bytes[i] as number, PRIME5)) | 0, 11), PRIME1);
    i += 1;
  }
  h ^= h >>> 15;
  h = Math.imul(h, PRIME2);
  h ^= h >>> 13;
  h = Math.imul(h, PRIME3);
  h ^= h >>> 16;
  return h >>> 0;
}
