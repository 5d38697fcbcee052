import { UnsupportedError } from '@agdx/wire';
import type { Ed25519Backend } from './backend.js';
import { pkcs8FromSeed } from './key-documents.js';
import { isAcceptablePublicKey, isCanonicalSignature } from './strict-rules.js';

const ALGORITHM = { name: 'Ed25519' } as const;

/** The platform's SubtleCrypto, reached through globalThis so no runtime module is imported. */
function subtle(): SubtleCrypto | undefined {
  const c = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto;
  return c?.subtle;
}

function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

// Importing a key costs about as much as a signature, so imported keys are cached per byte
// array. Callers (SigningKey, KeyRecord) keep private, never-mutated copies, so identity is stable.
// Once an import settles, the CryptoKey itself is cached too, so the hot path awaits nothing
// but the signature operation.
const signingKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
const verifyingKeys = new WeakMap<Uint8Array, Promise<CryptoKey | undefined>>();
const readySigningKeys = new WeakMap<Uint8Array, CryptoKey>();
const readyVerifyingKeys = new WeakMap<Uint8Array, CryptoKey | null>();

function signingKeyFor(api: SubtleCrypto, seed: Uint8Array): Promise<CryptoKey> {
  let key = signingKeys.get(seed);
  if (key === undefined) {
    // importKey copies its key data when called (WebCrypto spec), so the document is wiped at once.
    const document = pkcs8FromSeed(seed);
    key = api.importKey('pkcs8', document, ALGORITHM, false, ['sign']);
    document.fill(0);
    key.then((k) => readySigningKeys.set(seed, k), () => undefined);
    signingKeys.set(seed, key);
  }
  return key;
}

function verifyingKeyFor(api: SubtleCrypto, publicKey: Uint8Array): Promise<CryptoKey | undefined> {
  let key = verifyingKeys.get(publicKey);
  if (key === undefined) {
    // A point that is not on the curve fails at import on some runtimes: that key verifies nothing.
    key = api.importKey('raw', copy(publicKey), ALGORITHM, false, ['verify']).then(
      (k) => {
        readyVerifyingKeys.set(publicKey, k);
        return k;
      },
      () => {
        readyVerifyingKeys.set(publicKey, null);
        return undefined;
      },
    );
    verifyingKeys.set(publicKey, key);
  }
  return key;
}

function toBytes(buffer: ArrayBuffer): Uint8Array {
  return new Uint8Array(buffer);
}

// WebCrypto accepts any BufferSource; the cast only narrows TypeScript's ArrayBufferLike view.
function source(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}

function unavailable(): Promise<never> {
  return Promise.reject(new UnsupportedError('WebCrypto is not available on this runtime'));
}

// A platform that names Ed25519 but fails at it is unsupported, not a bad signature.
function failed(cause: unknown): never {
  throw new UnsupportedError('WebCrypto Ed25519 failed on this runtime', { cause });
}

/**
 * The WebCrypto back end (`globalThis.crypto.subtle`, algorithm `Ed25519`). Rejects with
 * UnsupportedError when the runtime lacks WebCrypto or its Ed25519 fails.
 */
export const webCryptoBackend: Ed25519Backend = {
  name: 'webcrypto',
  sign(seed, _publicKey, message) {
    const api = subtle();
    if (api === undefined) return unavailable();
    // The hot path chains one promise (result and error mapping together) onto the WebCrypto
    // call instead of nesting async frames: each extra promise is a microtask per signature.
    // `message` may be a buffer the caller reuses: WebCrypto copies it at the call, but a call
    // deferred behind the key import must keep its own copy.
    const ready = readySigningKeys.get(seed);
    let signed: Promise<ArrayBuffer>;
    if (ready === undefined) {
      const data = copy(message);
      signed = signingKeyFor(api, seed).then((key) => api.sign(ALGORITHM, key, data));
    } else {
      signed = api.sign(ALGORITHM, ready, source(message));
    }
    return signed.then(toBytes, failed);
  },
  verify(publicKey, message, signature) {
    const api = subtle();
    if (api === undefined) return unavailable();
    if (publicKey.length !== 32 || !isCanonicalSignature(signature) || !isAcceptablePublicKey(publicKey)) {
      return Promise.resolve(false);
    }
    const check = (key: CryptoKey | null | undefined): Promise<boolean> | boolean =>
      key === undefined || key === null ? false : api.verify(ALGORITHM, key, source(signature), source(message));
    const ready = readyVerifyingKeys.get(publicKey);
    let verdict: Promise<boolean>;
    if (ready === undefined) {
      // Deferred behind the key import: keep a copy of a message the caller may reuse.
      const data = copy(message);
      verdict = verifyingKeyFor(api, publicKey).then((key) =>
        key === undefined ? false : api.verify(ALGORITHM, key, source(signature), data),
      );
    } else {
      verdict = Promise.resolve(check(ready));
    }
    // A runtime error inside verify means "not verified", never "valid".
    return verdict.catch(() => false);
  },
};

let probe: Promise<boolean> | undefined;

/**
 * Resolves true when this runtime's WebCrypto can sign and verify Ed25519. Checked once with
 * a real sign/verify round trip, because some runtimes expose the name but not the algorithm.
 */
export function webCryptoEd25519Available(): Promise<boolean> {
  probe ??= (async () => {
    const api = subtle();
    if (api === undefined) return false;
    try {
      const seed = new Uint8Array(32);
      const key = await api.importKey('pkcs8', pkcs8FromSeed(seed), ALGORITHM, false, ['sign']);
      const sig = await api.sign(ALGORITHM, key, new Uint8Array(0));
      return sig.byteLength === 64;
    } catch {
      return false;
    }
  })();
  return probe;
}
