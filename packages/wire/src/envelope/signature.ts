/**
 * Signed context bound into the signing input next to the envelope, so a verifier can compare it with
 * the record's `agdx.ct` / `agdx.av` headers.
 */
export interface SignatureContext {
  /** The `agdx.ct` content type code (u8). */
  readonly contentType?: number;
  /** The `agdx.av` agent protocol version (u32). */
  readonly agentVersion?: number;
}

/**
 * A detached signature over the canonical encoding of the envelope with `signature` absent.
 * Scheme 1 (Ed25519) has an 8-byte key id and 64-byte signature; other schemes pass validation.
 */
export interface Signature {
  /** Scheme code (u8); 1 = Ed25519. */
  readonly scheme: number;
  /** Key id (8 bytes for Ed25519: the first 8 bytes of SHA-256 of the verifying key). */
  readonly keyId: Uint8Array;
  /** Signature bytes (64 for Ed25519). */
  readonly bytes: Uint8Array;
  /** Optional signed context. */
  readonly context?: SignatureContext;
}
