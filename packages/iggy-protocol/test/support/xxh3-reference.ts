/**
 * The reference the XXH3 tests hold our hashing to: hash-wasm's XXH3-64 (seed 0), and a
 * deterministic byte pattern (xorshift) for inputs of any length.
 */
import { createXXHash3 } from 'hash-wasm';
import type { IHasher } from 'hash-wasm';

let reference: IHasher | undefined;

/** Loads hash-wasm's XXH3 hasher; await it (in `beforeAll`) before {@link expectedXxh3}. */
export async function loadReference(): Promise<void> {
  reference ??= await createXXHash3(0, 0);
}

/** hash-wasm's XXH3-64 of `bytes`. */
export function expectedXxh3(bytes: Uint8Array): bigint {
  if (reference === undefined) throw new Error('call loadReference() first');
  reference.init();
  reference.update(bytes);
  return BigInt(`0x${reference.digest('hex')}`);
}

/** `length` pseudo-random bytes from `seed` (xorshift32). */
export function pattern(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
