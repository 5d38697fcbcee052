// The DER key documents platform Ed25519 APIs import: neither WebCrypto nor node:crypto takes a
// raw 32-byte seed, and node:crypto takes no raw public key either. Both documents are a fixed
// prefix followed by the key bytes, so no DER encoder is needed.

// PKCS#8 PrivateKeyInfo for Ed25519 (RFC 8410): SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 },
// OCTET STRING { OCTET STRING (32 bytes) } }. Everything before the seed is fixed.
const PKCS8_ED25519_PREFIX = Uint8Array.of(
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
);

// SubjectPublicKeyInfo for Ed25519 (RFC 8410): SEQUENCE { SEQUENCE { OID 1.3.101.112 },
// BIT STRING { 0 unused bits, 32 bytes } }.
const SPKI_ED25519_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

function prefixed(prefix: Uint8Array, key: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(prefix.length + key.length);
  out.set(prefix, 0);
  out.set(key, prefix.length);
  return out;
}

/** Wraps a 32-byte Ed25519 seed into the PKCS#8 document WebCrypto and node:crypto import. */
export function pkcs8FromSeed(seed: Uint8Array): Uint8Array<ArrayBuffer> {
  return prefixed(PKCS8_ED25519_PREFIX, seed);
}

/** Wraps a 32-byte Ed25519 public key into the SubjectPublicKeyInfo document node:crypto imports. */
export function spkiFromPublicKey(publicKey: Uint8Array): Uint8Array<ArrayBuffer> {
  return prefixed(SPKI_ED25519_PREFIX, publicKey);
}
