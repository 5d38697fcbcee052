import type { SyncEd25519Backend } from './backend.js';
import { expandSeed, signExpanded } from './noble-expanded.js';
import type { ExpandedSecret } from './noble-expanded.js';
import { verifyStrict } from './noble-verify.js';

// Expanded secrets per seed array: callers (SigningKey) keep one private, never-mutated seed
// copy, so the array's identity is a safe cache key and the expansion happens once per key.
const expanded = new WeakMap<Uint8Array, ExpandedSecret>();

function expandedFor(seed: Uint8Array): ExpandedSecret {
  let secret = expanded.get(seed);
  if (secret === undefined) {
    secret = expandSeed(seed);
    expanded.set(seed, secret);
  }
  return secret;
}

/** Derives the 32-byte public key of a 32-byte seed. */
export function noblePublicKey(seed: Uint8Array): Uint8Array {
  return expandedFor(seed).publicKey.slice();
}

/** Synchronous Ed25519 signature with @noble/curves primitives. */
export function nobleSignSync(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return signExpanded(expandedFor(seed), message);
}

/**
 * Synchronous Ed25519 verification with @noble/curves primitives under the strict RFC 8032 rules
 * (`zip215: false`), which is what the platform (OpenSSL) applies, so both back ends agree on
 * edge-case signatures too. Never throws.
 */
export function nobleVerifySync(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verifyStrict(publicKey, message, signature);
  } catch {
    return false;
  }
}

/** The pure-JavaScript back end, available on every runtime. */
export const nobleBackend: SyncEd25519Backend = {
  name: 'noble',
  sign: (seed, _publicKey, message) => Promise.resolve(nobleSignSync(seed, message)),
  verify: (publicKey, message, signature) => Promise.resolve(nobleVerifySync(publicKey, message, signature)),
  signSync: (seed, _publicKey, message) => nobleSignSync(seed, message),
  verifySync: nobleVerifySync,
};
