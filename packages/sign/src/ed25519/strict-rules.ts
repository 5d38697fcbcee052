// The strict RFC 8032 rules @noble/curves applies with `zip215: false`, checked up front so the
// platform back end (whose verifier may be more lenient about them) gives the same verdicts:
// a canonical S (< L), a canonical R encoding (y < p), and a public key that decodes strictly and
// is not of small order.
import { ed25519 } from '@noble/curves/ed25519.js';

const L = ed25519.Point.Fn.ORDER;
const P = ed25519.Point.Fp.ORDER;

function littleEndian(bytes: Uint8Array, from: number, to: number): bigint {
  let value = 0n;
  for (let i = to - 1; i >= from; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

const acceptableKeys = new WeakMap<Uint8Array, boolean>();

/** True when `publicKey` decodes strictly and is not a small-order point (cached per array). */
export function isAcceptablePublicKey(publicKey: Uint8Array): boolean {
  let verdict = acceptableKeys.get(publicKey);
  if (verdict === undefined) {
    try {
      verdict = !ed25519.Point.fromBytes(publicKey, false).isSmallOrder();
    } catch {
      verdict = false;
    }
    acceptableKeys.set(publicKey, verdict);
  }
  return verdict;
}

/** True when the 64-byte signature has a canonical S and a canonical R encoding. */
export function isCanonicalSignature(signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  if (littleEndian(signature, 32, 64) >= L) return false;
  const y = littleEndian(signature, 0, 32) & ((1n << 255n) - 1n);
  return y < P;
}
