// The strict RFC 8032 rules @noble/curves applies with `zip215: false`, checked up front so the
// platform back end (whose verifier may be more lenient about them) gives the same verdicts:
// a canonical S (< L), a canonical R encoding (y < p), and a public key that decodes strictly and
// is not of small order.
import { ed25519 } from '@noble/curves/ed25519.js';

function littleEndianBytes(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

// Group order L and field prime p as 32 little-endian bytes: comparing bytes from the most
// significant end keeps the per-signature check free of bigint arithmetic.
const L_BYTES = littleEndianBytes(ed25519.Point.Fn.ORDER);
const P_BYTES = littleEndianBytes(ed25519.Point.Fp.ORDER);

// True when the 32 little-endian bytes at `offset` (top bit cleared when `maskTop`) are below `bound`.
function below(bytes: Uint8Array, offset: number, bound: Uint8Array, maskTop: boolean): boolean {
  for (let i = 31; i >= 0; i--) {
    let b = bytes[offset + i]!;
    if (i === 31 && maskTop) b &= 0x7f;
    const c = bound[i]!;
    if (b !== c) return b < c;
  }
  return false;
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
  return signature.length === 64 && below(signature, 32, L_BYTES, false) && below(signature, 0, P_BYTES, true);
}
