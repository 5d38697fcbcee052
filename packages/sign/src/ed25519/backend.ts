/** Names of the Ed25519 implementations this package can use. */
export type Ed25519BackendName = 'noble' | 'platform';

/** The selection `setEd25519Backend` accepts: a fixed back end, or `auto` (platform when present). */
export type Ed25519BackendChoice = Ed25519BackendName | 'auto';

/**
 * One Ed25519 implementation (RFC 8032, pure Ed25519). Every back end gives byte-identical
 * signatures for the same seed and message, and the same verdicts; the tests hold them to that.
 *
 * Methods are async because WebCrypto is; the noble back end resolves immediately.
 */
export interface Ed25519Backend {
  /** Which implementation this is. */
  readonly name: Ed25519BackendName;
  /**
   * Signs `message` with the 32-byte secret `seed` whose public key is `publicKey`. `message` is
   * read during the call (or copied by it): callers may reuse its buffer once the call returns.
   */
  sign(seed: Uint8Array, publicKey: Uint8Array, message: Uint8Array): Promise<Uint8Array>;
  /** True when `signature` (64 bytes) is valid for `message` under `publicKey` (32 bytes); `message` is read during the call, as for `sign`. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}
