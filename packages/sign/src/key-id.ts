import { sha256 } from '@noble/hashes/sha2.js';
import { toHex } from './bytes.js';

/** Length in bytes of an Ed25519 key id. */
export const KEY_ID_LENGTH = 8;
/** Length in bytes of an Ed25519 verifying (public) key. */
export const VERIFYING_KEY_LENGTH = 32;
/** Length in bytes of an Ed25519 secret seed. */
export const SEED_LENGTH = 32;
/** Length in bytes of an Ed25519 signature. */
export const SIGNATURE_LENGTH = 64;

/** The 8-byte key id of a verifying key: the first 8 bytes of its SHA-256 digest. */
export function keyIdOf(verifyingKey: Uint8Array): Uint8Array {
  return sha256(verifyingKey).slice(0, KEY_ID_LENGTH);
}

/**
 * The registry key of a verifying key: lowercase hex of its key id (16 characters). It is also
 * the key-value key of the managed registry namespace `agent.keys`.
 */
export function registryKeyOf(verifyingKey: Uint8Array): string {
  return toHex(keyIdOf(verifyingKey));
}
