import type { AgentEnvelope, Signature, SignatureContext } from '@agdx/wire';
import { isBytes, toHex, tryFromHex } from './bytes.js';
import type { Ed25519BackendChoice } from './ed25519/backend.js';
import { noblePublicKey } from './ed25519/noble.js';
import { backendFor, syncBackendFor } from './ed25519/select.js';
import { attachSignature, encodeUnsigned } from './envelope-port.js';
import { SignatureError } from './errors.js';
import { keyIdOf, SEED_LENGTH } from './key-id.js';
import { ED25519_SCHEME } from './signature-capsule.js';
import { signingInputFromEncoded } from './signing-input.js';
import { envelopePreimage } from './signing-preimage.js';

/** Options shared by keys, registries and card functions. */
export interface Ed25519Options {
  /** Which Ed25519 implementation to use; default: the process-wide choice (`auto`). */
  readonly backend?: Ed25519BackendChoice;
}

/**
 * The signing input of an envelope: `agdx.signature.v1` ‖ CBOR(context) when given ‖ the
 * canonical envelope CBOR with its signature absent.
 */
export function signingInput(envelope: AgentEnvelope, context?: SignatureContext): Uint8Array {
  return signingInputFromEncoded(encodeUnsigned(envelope), context);
}

function randomSeed(): Uint8Array {
  const c = (globalThis as { crypto?: { getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (c?.getRandomValues === undefined) throw new SignatureError('this runtime has no secure random source');
  return c.getRandomValues(new Uint8Array(SEED_LENGTH));
}

/**
 * An Ed25519 signing key (scheme 1) built from a 32-byte secret seed.
 *
 * `sign`, `signBytes` use the configured back end and return Promises (WebCrypto is async);
 * `signSync`, `signBytesSync` return at once, on `node-crypto` when the back-end choice allows
 * it and the runtime has it, else on @noble/curves. All give the same bytes: Ed25519 is
 * deterministic.
 */
export class SigningKey {
  readonly #seed: Uint8Array;
  readonly #verifyingKey: Uint8Array;
  readonly #keyId: Uint8Array;
  readonly #backend: Ed25519BackendChoice | undefined;
  /** Lowercase hex of the key id (the registry key of this key's record). */
  readonly registryKey: string;

  private constructor(seed: Uint8Array, options: Ed25519Options | undefined) {
    this.#seed = seed;
    this.#verifyingKey = noblePublicKey(seed);
    this.#keyId = keyIdOf(this.#verifyingKey);
    this.#backend = options?.backend;
    this.registryKey = toHex(this.#keyId);
  }

  /**
   * A key from its 32-byte secret seed (copied).
   *
   * @throws SignatureError `Ed25519 secret seed must be 32 bytes`.
   */
  static fromBytes(seed: Uint8Array, options?: Ed25519Options): SigningKey {
    if (!isBytes(seed) || seed.length !== SEED_LENGTH) throw new SignatureError('Ed25519 secret seed must be 32 bytes');
    return new SigningKey(seed.slice(), options);
  }

  /**
   * A key from the hex of its 32-byte seed.
   *
   * @throws SignatureError for non-hex text or a seed that is not 32 bytes.
   */
  static fromHex(seedHex: string, options?: Ed25519Options): SigningKey {
    const seed = tryFromHex(seedHex);
    if (seed === undefined) throw new SignatureError('Ed25519 secret seed must be hex');
    return SigningKey.fromBytes(seed, options);
  }

  /** A fresh random key from the platform's secure random source. */
  static generate(options?: Ed25519Options): SigningKey {
    return new SigningKey(randomSeed(), options);
  }

  /** The 32-byte verifying (public) key (a fresh copy). */
  get verifyingKey(): Uint8Array {
    return this.#verifyingKey.slice();
  }

  /** The 8-byte key id: first 8 bytes of SHA-256 of the verifying key (a fresh copy). */
  get keyId(): Uint8Array {
    return this.#keyId.slice();
  }

  /** Signs raw bytes with the configured back end. */
  async signBytes(message: Uint8Array): Promise<Uint8Array> {
    if (!isBytes(message)) throw new SignatureError('message to sign must be bytes');
    return this.#signInput(message);
  }

  /** Signs raw bytes synchronously (`node-crypto` when the choice allows it, else noble). */
  signBytesSync(message: Uint8Array): Uint8Array {
    if (!isBytes(message)) throw new SignatureError('message to sign must be bytes');
    return syncBackendFor(this.#backend).signSync(this.#seed, this.#verifyingKey, message);
  }

  /**
   * Returns `envelope` with a Signature capsule (scheme 1, this key id, the 64 signature bytes
   * and `context` when given) over {@link signingInput}. Any existing signature is replaced.
   */
  async sign(envelope: AgentEnvelope, context?: SignatureContext): Promise<AgentEnvelope> {
    const input = envelopePreimage(envelope, context);
    return attachSignature(envelope, this.#capsule(await this.#signInput(input), context));
  }

  /** {@link SigningKey.sign}, synchronously (`node-crypto` when the choice allows it, else noble). */
  signSync(envelope: AgentEnvelope, context?: SignatureContext): AgentEnvelope {
    const input = envelopePreimage(envelope, context);
    const bytes = syncBackendFor(this.#backend).signSync(this.#seed, this.#verifyingKey, input);
    return attachSignature(envelope, this.#capsule(bytes, context));
  }

  /** Signs already-encoded unsigned envelope bytes; returns the capsule to attach. */
  async signEncoded(unsignedEnvelope: Uint8Array, context?: SignatureContext): Promise<Signature> {
    return this.#capsule(await this.signBytes(signingInputFromEncoded(unsignedEnvelope, context)), context);
  }

  // A synchronous back end answers at once and the async caller's await takes it as it is; an
  // asynchronous one gives its promise, without an async frame around it. The signing input is
  // built by this package, so it needs no argument check. It may be the shared preimage buffer,
  // which back ends read at the call; only a call deferred behind the back-end probe copies it.
  #signInput(input: Uint8Array): Uint8Array | Promise<Uint8Array> {
    const pending = backendFor(this.#backend);
    if (pending instanceof Promise) {
      const stable = input.slice();
      return pending.then((backend) => backend.sign(this.#seed, this.#verifyingKey, stable));
    }
    if (pending.signSync !== undefined) return pending.signSync(this.#seed, this.#verifyingKey, input);
    return pending.sign(this.#seed, this.#verifyingKey, input);
  }

  #capsule(bytes: Uint8Array, context: SignatureContext | undefined): Signature {
    const base = { scheme: ED25519_SCHEME, keyId: this.keyId, bytes };
    return context === undefined ? base : { ...base, context: { ...context } };
  }
}
