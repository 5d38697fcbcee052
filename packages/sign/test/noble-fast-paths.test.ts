// The noble back end's fast paths (per-key prepared points and window tables for verification,
// the wide-window base point for signing) held to plain @noble/curves verdict for verdict and
// byte for byte, including the edge cases where strict RFC 8032 rules decide.
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { nobleVerifySync, nobleSignSync } from '../src/ed25519/noble.js';
import { tabledKeyCount } from '../src/ed25519/noble-verify.js';
import { toHex } from './support/fixtures.js';

const L = ed25519.Point.Fn.ORDER;
const P = ed25519.Point.Fp.ORDER;

function stream(n: number): () => number {
  let x = (0x9e3779b9 ^ Math.imul(n, 0x85ebca6b)) | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  };
}

function bytes(n: number, length: number): Uint8Array {
  const next = stream(n);
  return Uint8Array.from({ length }, next);
}

function plain(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

function le(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

// Every variant of a valid (key, message, signature) that a verifier must judge: each one is
// checked against the library's own strict verify.
function variants(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, n: number): [Uint8Array, Uint8Array, Uint8Array][] {
  const flipped = (b: Uint8Array, at: number) => {
    const c = b.slice();
    const i = at % c.length;
    c[i] = c[i]! ^ (1 << (n % 8));
    return c;
  };
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
  const sPlusL = signature.slice();
  sPlusL.set(le(s + L), 32);
  const rNonCanonical = signature.slice();
  rNonCanonical.set(le(P + 1n), 0); // y = p + 1 encodes y = 1 non-canonically
  const identity = le(1n);
  const orderTwo = le(P - 1n);
  return [
    [publicKey, message, signature],
    [publicKey, flipped(message.length > 0 ? message : Uint8Array.of(0), n), signature],
    [publicKey, message, flipped(signature, n)],
    [publicKey, message, flipped(signature, 32 + n)],
    [flipped(publicKey, n), message, signature],
    [publicKey, message, sPlusL],
    [publicKey, message, rNonCanonical],
    [identity, message, signature],
    [orderTwo, message, signature],
    [publicKey, message, new Uint8Array(64)],
    [publicKey, message, signature.subarray(0, 63)],
    [publicKey.subarray(0, 31), message, signature],
  ];
}

describe('noble fast paths match plain @noble/curves', () => {
  it('signs byte for byte like ed25519.sign across seeds and lengths', () => {
    for (let n = 0; n < 40; n++) {
      const seed = bytes(n, 32);
      const message = bytes(500 + n, n * 7);
      expect(toHex(nobleSignSync(seed, message))).toBe(toHex(ed25519.sign(message, seed)));
    }
  });

  it('gives the same verdict as ed25519.verify, before and after a key earns its table', () => {
    for (let n = 0; n < 12; n++) {
      const seed = bytes(100 + n, 32);
      const publicKey = ed25519.getPublicKey(seed);
      // Enough uses of the same key array that the later rounds run on the tabled point.
      for (let round = 0; round < 8; round++) {
        const message = bytes(1000 * n + round, 20 + round * 13);
        const signature = ed25519.sign(message, seed);
        for (const [k, m, s] of variants(publicKey, message, signature, round)) {
          expect(nobleVerifySync(k, m, s)).toBe(plain(k, m, s));
        }
        expect(nobleVerifySync(publicKey, message, signature)).toBe(true);
      }
    }
    // The later rounds above ran on tabled points, not only on freshly decoded ones.
    expect(tabledKeyCount()).toBeGreaterThan(0);
  });

  it('agrees on random keys and signatures, which almost never decode or verify', () => {
    for (let n = 0; n < 200; n++) {
      const k = bytes(7000 + n, 32);
      const m = bytes(8000 + n, n % 50);
      const s = bytes(9000 + n, 64);
      expect(nobleVerifySync(k, m, s)).toBe(plain(k, m, s));
    }
  });

  it('notices a key array that was changed after it was cached', () => {
    const seedA = bytes(1, 32);
    const seedB = bytes(2, 32);
    const key = ed25519.getPublicKey(seedA);
    const message = Uint8Array.of(1, 2, 3);
    for (let i = 0; i < 6; i++) expect(nobleVerifySync(key, message, ed25519.sign(message, seedA))).toBe(true);
    key.set(ed25519.getPublicKey(seedB));
    expect(nobleVerifySync(key, message, ed25519.sign(message, seedA))).toBe(false);
    expect(nobleVerifySync(key, message, ed25519.sign(message, seedB))).toBe(true);
  });

  it('bounds how many keys hold a table, and evicted keys still verify correctly', () => {
    const message = Uint8Array.of(9);
    const keys = Array.from({ length: 66 }, (_, i) => {
      const seed = bytes(20_000 + i, 32);
      return { seed, publicKey: ed25519.getPublicKey(seed), signature: ed25519.sign(message, seed) };
    });
    for (const { publicKey, signature } of keys) {
      for (let use = 0; use < 17; use++) expect(nobleVerifySync(publicKey, message, signature)).toBe(true);
    }
    expect(tabledKeyCount()).toBeLessThanOrEqual(64);
    const first = keys[0]!;
    expect(nobleVerifySync(first.publicKey, message, first.signature)).toBe(true);
    expect(nobleVerifySync(first.publicKey, Uint8Array.of(8), first.signature)).toBe(false);
  });

  it('never throws on inputs of the wrong type', () => {
    const k = bytes(3, 32);
    const s = bytes(4, 64);
    expect(nobleVerifySync('key' as unknown as Uint8Array, Uint8Array.of(1), s)).toBe(false);
    expect(nobleVerifySync(k, null as unknown as Uint8Array, s)).toBe(false);
    expect(nobleVerifySync(k, Uint8Array.of(1), [1, 2] as unknown as Uint8Array)).toBe(false);
  });
});
