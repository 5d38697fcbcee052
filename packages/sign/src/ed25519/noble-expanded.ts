// RFC 8032 section 5.1.6 signing from a pre-expanded secret. @noble/curves re-derives the public
// point (a full base-point multiplication) on every `sign`; keeping the expanded key per
// SigningKey halves the work. Built only from the library's own field, point and hash
// primitives, and held to `ed25519.sign` byte for byte by the differential tests.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';

const Point = ed25519.Point;
const Fn = Point.Fn;

/** A secret seed expanded once: the clamped scalar, the nonce prefix and the public key bytes. */
export interface ExpandedSecret {
  readonly scalar: bigint;
  readonly prefix: Uint8Array;
  readonly publicKey: Uint8Array;
}

function scalarFromLE(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function concat(a: Uint8Array, b: Uint8Array, c?: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length + (c?.length ?? 0));
  out.set(a, 0);
  out.set(b, a.length);
  if (c !== undefined) out.set(c, a.length + b.length);
  return out;
}

/** Expands a 32-byte seed (RFC 8032 5.1.5). */
export function expandSeed(seed: Uint8Array): ExpandedSecret {
  const hashed = sha512(seed);
  const head = hashed.slice(0, 32);
  head[0] = head[0]! & 248;
  head[31] = (head[31]! & 127) | 64;
  const scalar = Fn.create(scalarFromLE(head));
  return { scalar, prefix: hashed.slice(32, 64), publicKey: Point.BASE.multiply(scalar).toBytes() };
}

/** Deterministic Ed25519 signature of `message` with an expanded secret. */
export function signExpanded(secret: ExpandedSecret, message: Uint8Array): Uint8Array {
  const r = Fn.create(scalarFromLE(sha512(concat(secret.prefix, message))));
  const R = Point.BASE.multiply(r).toBytes();
  const k = Fn.create(scalarFromLE(sha512(concat(R, secret.publicKey, message))));
  const s = Fn.create(r + k * secret.scalar);
  return concat(R, Fn.toBytes(s));
}
