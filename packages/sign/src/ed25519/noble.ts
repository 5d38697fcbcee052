import { ed25519 } from '@noble/curves/ed25519.js';
import type { Ed25519Backend } from './backend.js';

// zip215: false gives the strict RFC 8032 rules, which is what the platform (OpenSSL) applies,
// so both back ends agree on edge-case signatures too.
const STRICT = { zip215: false } as const;

/** Derives the 32-byte public key of a 32-byte seed. */
export function noblePublicKey(seed: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(seed);
}

/** Synchronous Ed25519 signature with @noble/curves. */
export function nobleSignSync(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seed);
}

/** Synchronous Ed25519 verification with @noble/curves; never throws. */
export function nobleVerifySync(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, STRICT);
  } catch {
    return false;
  }
}

/** The pure-JavaScript back end, available on every runtime. */
export const nobleBackend: Ed25519Backend = {
  name: 'noble',
  sign: (seed, _publicKey, message) => Promise.resolve(nobleSignSync(seed, message)),
  verify: (publicKey, message, signature) => Promise.resolve(nobleVerifySync(publicKey, message, signature)),
};
