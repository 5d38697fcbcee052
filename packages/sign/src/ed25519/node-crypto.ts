import { UnsupportedError } from '@agdx/wire';
import type { SyncEd25519Backend } from './backend.js';
import { pkcs8FromSeed, spkiFromPublicKey } from './key-documents.js';
import { nodeCryptoModule } from './node-crypto-module.js';
import type { NodeCryptoEd25519, NodeKeyObject } from './node-crypto-module.js';
import { isAcceptablePublicKey, isCanonicalSignature } from './strict-rules.js';

// RFC 8032 section 7.1, TEST 1 (empty message): the probe checks the runtime's answer byte for
// byte, because a runtime that names the calls but implements them differently (or not for
// Ed25519) must not be used: every back end gives the same signature bytes.
const PROBE_SEED = hexBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PROBE_PUBLIC_KEY = hexBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const PROBE_SIGNATURE = hexBytes(
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
);

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when `api` signs the RFC 8032 vector to the expected bytes, verifies it, and refuses it
 * with one bit changed. Never throws.
 */
export function nodeCryptoWorks(api: NodeCryptoEd25519): boolean {
  try {
    const message = new Uint8Array(0);
    const secret = api.createPrivateKey({ key: pkcs8FromSeed(PROBE_SEED), format: 'der', type: 'pkcs8' });
    const signature = api.sign(null, message, secret);
    if (!equalBytes(new Uint8Array(signature), PROBE_SIGNATURE)) return false;
    const publicKey = api.createPublicKey({ key: spkiFromPublicKey(PROBE_PUBLIC_KEY), format: 'der', type: 'spki' });
    const tampered = PROBE_SIGNATURE.slice();
    tampered[0]! ^= 1;
    return api.verify(null, message, publicKey, PROBE_SIGNATURE) === true && api.verify(null, message, publicKey, tampered) === false;
  } catch {
    return false;
  }
}

let probed: NodeCryptoEd25519 | null | undefined;

/**
 * The runtime's `node:crypto` when it has a working Ed25519 (probed once per process,
 * synchronously), else undefined.
 */
export function workingNodeCrypto(): NodeCryptoEd25519 | undefined {
  if (probed === undefined) {
    const api = nodeCryptoModule();
    probed = api !== undefined && nodeCryptoWorks(api) ? api : null;
  }
  return probed ?? undefined;
}

// Imported keys per byte array: an import costs about as much as a signature. Callers
// (SigningKey, KeyRecord) keep private, never-mutated copies, so the array's identity is a safe
// key, and a WeakMap holds each key object only as long as its owner lives. The private key
// objects stay in this module: nothing hands them out.
const privateKeys = new WeakMap<Uint8Array, NodeKeyObject>();
// `null`: a public key the platform refuses to import verifies nothing.
const publicKeys = new WeakMap<Uint8Array, NodeKeyObject | null>();

function privateKeyFor(api: NodeCryptoEd25519, seed: Uint8Array): NodeKeyObject {
  let key = privateKeys.get(seed);
  if (key === undefined) {
    // The import copies the seed into the platform's key; the temporary document is wiped.
    const document = pkcs8FromSeed(seed);
    try {
      key = api.createPrivateKey({ key: document, format: 'der', type: 'pkcs8' });
    } finally {
      document.fill(0);
    }
    privateKeys.set(seed, key);
  }
  return key;
}

function publicKeyFor(api: NodeCryptoEd25519, publicKey: Uint8Array): NodeKeyObject | null {
  let key = publicKeys.get(publicKey);
  if (key === undefined) {
    try {
      key = api.createPublicKey({ key: spkiFromPublicKey(publicKey), format: 'der', type: 'spki' });
    } catch {
      key = null;
    }
    publicKeys.set(publicKey, key);
  }
  return key;
}

function required(): NodeCryptoEd25519 {
  const api = workingNodeCrypto();
  if (api === undefined) throw new UnsupportedError('this runtime offers no node:crypto Ed25519');
  return api;
}

function signNow(seed: Uint8Array, _publicKey: Uint8Array, message: Uint8Array): Uint8Array {
  const api = required();
  let signature: Uint8Array;
  try {
    signature = api.sign(null, message, privateKeyFor(api, seed));
  } catch (cause) {
    // A platform that passed the probe but fails now is unsupported, not a bad signature.
    throw new UnsupportedError('node:crypto Ed25519 failed on this runtime', { cause });
  }
  // The platform returns its own byte type (Buffer on Node): hand out a plain Uint8Array copy.
  return new Uint8Array(signature);
}

function verifyNow(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  // The strict RFC 8032 rules noble applies, checked first: OpenSSL alone accepts, for
  // example, the all-zero S under the identity key for any message.
  if (publicKey.length !== 32 || !isCanonicalSignature(signature) || !isAcceptablePublicKey(publicKey)) return false;
  const api = workingNodeCrypto();
  if (api === undefined) return false;
  const key = publicKeyFor(api, publicKey);
  if (key === null) return false;
  try {
    return api.verify(null, message, key, signature) === true;
  } catch {
    // A runtime error inside verify means "not verified", never "valid".
    return false;
  }
}

/**
 * The synchronous platform back end: `node:crypto`'s Ed25519 (OpenSSL on Node), reached through
 * `process.getBuiltinModule` (see node-crypto-module.ts). About twice as fast per call as
 * WebCrypto on Node 20, which dispatches every call to a worker thread and back.
 */
export const nodeCryptoBackend: SyncEd25519Backend = {
  name: 'node-crypto',
  sign(seed, publicKey, message) {
    try {
      return Promise.resolve(signNow(seed, publicKey, message));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  },
  verify: (publicKey, message, signature) => Promise.resolve(verifyNow(publicKey, message, signature)),
  signSync: signNow,
  verifySync: verifyNow,
};
