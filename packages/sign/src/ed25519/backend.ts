/**
 * Names of the Ed25519 implementations this package can use:
 * - `node-crypto`: the runtime's synchronous `node:crypto` Ed25519 (Node, Bun, Deno), found by
 *   feature detection through `process.getBuiltinModule`, never imported;
 * - `webcrypto`: `globalThis.crypto.subtle` (asynchronous);
 * - `noble`: @noble/curves, pure JavaScript, everywhere.
 */
export type Ed25519BackendName = 'node-crypto' | 'webcrypto' | 'noble';

/**
 * The selection `setEd25519Backend` and the `{ backend }` options accept: a fixed back end,
 * `platform` (the runtime's own Ed25519: `node-crypto` when present, else `webcrypto`; an error
 * when neither works), or `auto` (the default: `node-crypto`, else `webcrypto`, else `noble`).
 */
export type Ed25519BackendChoice = Ed25519BackendName | 'platform' | 'auto';

/**
 * One Ed25519 implementation (RFC 8032, pure Ed25519). Every back end gives byte-identical
 * signatures for the same seed and message, and the same verdicts; the tests hold them to that.
 *
 * `sign` and `verify` return Promises because WebCrypto is asynchronous; a back end that works
 * synchronously also offers `signSync` / `verifySync`, which callers use to skip the promise.
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
  /** `sign`, returning at once (synchronous back ends only); throws where `sign` rejects. */
  readonly signSync?: (seed: Uint8Array, publicKey: Uint8Array, message: Uint8Array) => Uint8Array;
  /** `verify`, returning at once (synchronous back ends only); never throws. */
  readonly verifySync?: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;
}

/** A back end with the synchronous calls (`node-crypto`, `noble`). */
export type SyncEd25519Backend = Ed25519Backend & Required<Pick<Ed25519Backend, 'signSync' | 'verifySync'>>;
