// RFC 8032 section 5.1.6 signing from a pre-expanded secret. @noble/curves re-derives the public
// point (a full base-point multiplication) on every `sign`; keeping the expanded key per
// SigningKey halves the work. Built only from the library's own field, point and hash
// primitives, and held to `ed25519.sign` byte for byte by the differential tests. The nonce
// point uses the wide-window base point (constant-time multiply, as the library's own).
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { wideBasePoint } from './base-point.js';

const Point = ed25519.Point;
const Fn = Point.Fn;

/** A secret seed expanded once: the clamped scalar, the nonce prefix and the public key bytes. */
export interface ExpandedSecret {
  readonly scalar: bigint;
  readonly prefix: Uint8Array;
  readonly publicKey: Uint8Array;
}

// SHA-512 of the parts, read as a little-endian integer reduced mod L (RFC 8032 5.1.6 steps 2, 4);
// the hash is fed the parts in turn instead of a concatenated copy.
function hashToScalar(a: Uint8Array, b: Uint8Array, c?: Uint8Array): bigint {
  const h = sha512.create().update(a).update(b);
  if (c !== undefined) h.update(c);
  return Fn.create(bytesToNumberLE(h.digest()));
}

/**
 * Expands a 32-byte seed (RFC 8032 5.1.5). Uses the library's own base point: every key is
 * derived here, also on the platform back end, which should not pay for the wide table.
 */
export function expandSeed(seed: Uint8Array): ExpandedSecret {
  const hashed = sha512(seed);
  const head = hashed.slice(0, 32);
  head[0] = head[0]! & 248;
  head[31] = (head[31]! & 127) | 64;
  const scalar = Fn.create(bytesToNumberLE(head));
  return { scalar, prefix: hashed.slice(32, 64), publicKey: Point.BASE.multiply(scalar).toBytes() };
}

/** Deterministic Ed25519 signature of `message` with an expanded secret. */
export function signExpanded(secret: ExpandedSecret, message: Uint8Array): Uint8Array {
  const r = hashToScalar(secret.prefix, message);
  const R = wideBasePoint().multiply(r).toBytes();
  const k = hashToScalar(R, secret.publicKey, message);
  const s = Fn.create(r + k * secret.scalar);
  const out = new Uint8Array(64);
  out.set(R, 0);
  out.set(Fn.toBytes(s), 32);
  return out;
}
