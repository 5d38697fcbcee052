import type { AgentEnvelope, Signature, SignatureContext } from '@agdx/wire';
import { isBytes, toHex } from './bytes.js';
import type { Ed25519Backend, Ed25519BackendChoice } from './ed25519/backend.js';
import { backendFor, syncBackendFor } from './ed25519/select.js';
import { splitSignedEnvelope } from './encoded-envelope.js';
import { signatureOf } from './envelope-port.js';
import { SignatureError } from './errors.js';
import { KEY_ID_LENGTH, SIGNATURE_LENGTH } from './key-id.js';
import { KeyKind } from './key-kind.js';
import { KeyRecord, stableVerifyingKey } from './key-record.js';
import { toMicros } from './micros.js';
import type { Micros } from './micros.js';
import { observedContext } from './observed-headers.js';
import type { ObservedHeaders } from './observed-headers.js';
import { ED25519_SCHEME } from './signature-capsule.js';
import type { SigningKey, Ed25519Options } from './signing-key.js';
import { signingInputFromEncoded } from './signing-input.js';
import { envelopePreimage } from './signing-preimage.js';
import type { Verifier, VerifiedPrincipal } from './verifier.js';

// What a check needs: the signature and, lazily, the bytes it covers (encoding is skipped
// when an earlier rule already rejects).
interface Subject {
  readonly signature: Signature | undefined;
  /** The signing input; for an envelope a view into the shared preimage buffer (read it at once). */
  input(context: SignatureContext | undefined): Uint8Array;
}

interface Prepared {
  readonly record: KeyRecord;
  readonly input: Uint8Array;
  readonly signature: Signature;
}

function envelopeSubject(envelope: AgentEnvelope): Subject {
  if (typeof envelope !== 'object' || envelope === null) throw new SignatureError('envelope must be an AgentEnvelope');
  return { signature: signatureOf(envelope), input: (context) => envelopePreimage(envelope, context) };
}

function encodedSubject(bytes: Uint8Array): Subject {
  const split = splitSignedEnvelope(bytes);
  return { signature: split.signature, input: (context) => signingInputFromEncoded(split.unsigned, context) };
}

/**
 * Maps Ed25519 key ids to {@link KeyRecord}s and verifies signed envelopes against them.
 *
 * Checks, in order: unsigned → scheme ≠ 1 → key id not 8 bytes or signature not 64 bytes →
 * key not enrolled → revoked → (with a time) validity window `[from, to)` → Ed25519 over the
 * signing input rebuilt with the signature's own context. Every failure is a
 * {@link SignatureError} with the documented message.
 *
 * The async methods use the configured back end; the `…Sync` methods use `node-crypto` when the
 * choice allows it and the runtime has it, else @noble/curves.
 */
export class KeyRegistry implements Verifier {
  readonly #records = new Map<string, KeyRecord>();
  readonly #backend: Ed25519BackendChoice | undefined;

  constructor(options?: Ed25519Options) {
    this.#backend = options?.backend;
  }

  /**
   * Enrolls `verifyingKey` for `principal`. A later enrollment of the same key replaces the
   * earlier one.
   *
   * @throws SignatureError for an empty principal or a key that is not 32 bytes.
   */
  enroll(principal: string, verifyingKey: Uint8Array | SigningKey, kind: KeyKind = KeyKind.Agent): KeyRecord {
    const bytes = isBytes(verifyingKey) ? verifyingKey : verifyingKey.verifyingKey;
    return this.enrollRecord(new KeyRecord({ principal, verifyingKey: bytes, kind }));
  }

  /** Enrolls a record, replacing any record of the same key. Returns it. */
  enrollRecord(record: KeyRecord): KeyRecord {
    if (!(record instanceof KeyRecord)) throw new SignatureError('enrollRecord expects a KeyRecord');
    this.#records.set(record.registryKey, record);
    return record;
  }

  /**
   * Marks the key with this 8-byte id (or registry hex key) revoked and returns the revoked record.
   *
   * @throws SignatureError `Ed25519 key id must be 8 bytes`, `signing key is not enrolled`.
   */
  revoke(keyId: Uint8Array | string): KeyRecord {
    const key = registryKeyArgument(keyId);
    const record = this.#records.get(key);
    if (record === undefined) throw new SignatureError('signing key is not enrolled');
    if (record.revoked) return record;
    const revoked = record.revoke();
    this.#records.set(key, revoked);
    return revoked;
  }

  /** The record enrolled for this key id (8 bytes or registry hex key), if any. */
  get(keyId: Uint8Array | string): KeyRecord | undefined {
    try {
      return this.#records.get(registryKeyArgument(keyId));
    } catch {
      return undefined;
    }
  }

  /** Every enrolled record, in enrollment order of their keys. */
  records(): KeyRecord[] {
    return [...this.#records.values()];
  }

  /** Number of enrolled keys. */
  get size(): number {
    return this.#records.size;
  }

  /** Verifies the signature (no time check) and resolves to the signer's principal. */
  async verify(envelope: AgentEnvelope): Promise<string> {
    return (await this.#verify(envelopeSubject(envelope), undefined)).principal;
  }

  /**
   * Verifies the signature with the key's validity window checked at `atMicros`.
   * With `observedHeaders`, behaves as {@link KeyRegistry.verifyObservedAt}.
   */
  async verifyAt(envelope: AgentEnvelope, atMicros: Micros, observedHeaders?: ObservedHeaders): Promise<VerifiedPrincipal> {
    if (observedHeaders !== undefined) return this.verifyObservedAt(envelope, atMicros, observedHeaders);
    return this.#verified(await this.#verify(envelopeSubject(envelope), toMicros(atMicros, 'atMicros')));
  }

  /**
   * Requires the signature to bind a context whose `content_type` and `agent_version` equal the
   * observed `agdx.ct` and `agdx.av` headers exactly, then verifies as `verifyAt`.
   */
  async verifyObservedAt(envelope: AgentEnvelope, atMicros: Micros, observedHeaders: ObservedHeaders): Promise<VerifiedPrincipal> {
    const subject = envelopeSubject(envelope);
    checkObserved(subject.signature, observedHeaders);
    return this.#verified(await this.#verify(subject, toMicros(atMicros, 'atMicros')));
  }

  /** {@link KeyRegistry.verify}, synchronously (see the class notes for the back end). */
  verifySync(envelope: AgentEnvelope): string {
    return this.#verifySync(envelopeSubject(envelope), undefined).principal;
  }

  /** {@link KeyRegistry.verifyAt}, synchronously (see the class notes for the back end). */
  verifyAtSync(envelope: AgentEnvelope, atMicros: Micros, observedHeaders?: ObservedHeaders): VerifiedPrincipal {
    const subject = envelopeSubject(envelope);
    if (observedHeaders !== undefined) checkObserved(subject.signature, observedHeaders);
    return this.#verified(this.#verifySync(subject, toMicros(atMicros, 'atMicros')));
  }

  /** {@link KeyRegistry.verifyObservedAt}, synchronously (see the class notes for the back end). */
  verifyObservedAtSync(envelope: AgentEnvelope, atMicros: Micros, observedHeaders: ObservedHeaders): VerifiedPrincipal {
    return this.verifyAtSync(envelope, atMicros, observedHeaders);
  }

  /**
   * Verifies encoded envelope bytes as they are, without decoding them into an AgentEnvelope:
   * the signature covers exactly these bytes minus the `signature` entry, so the input must be
   * canonical (non-canonical encodings that a decode and re-encode would repair do not verify).
   * `atMicros` checks the validity window; `observedHeaders` the bound context.
   */
  async verifyEncoded(bytes: Uint8Array, atMicros?: Micros, observedHeaders?: ObservedHeaders): Promise<VerifiedPrincipal> {
    const subject = encodedSubject(bytes);
    if (observedHeaders !== undefined) checkObserved(subject.signature, observedHeaders);
    const at = atMicros === undefined ? undefined : toMicros(atMicros, 'atMicros');
    return this.#verified(await this.#verify(subject, at));
  }

  /** {@link KeyRegistry.verifyEncoded}, synchronously (see the class notes for the back end). */
  verifyEncodedSync(bytes: Uint8Array, atMicros?: Micros, observedHeaders?: ObservedHeaders): VerifiedPrincipal {
    const subject = encodedSubject(bytes);
    if (observedHeaders !== undefined) checkObserved(subject.signature, observedHeaders);
    const at = atMicros === undefined ? undefined : toMicros(atMicros, 'atMicros');
    return this.#verified(this.#verifySync(subject, at));
  }

  #verified(record: KeyRecord): VerifiedPrincipal {
    return { principal: record.principal, kind: record.kind };
  }

  #prepare(subject: Subject, atMicros: bigint | undefined): Prepared {
    const signature = subject.signature;
    if (signature === undefined) throw new SignatureError('envelope is not signed');
    if (signature.scheme !== ED25519_SCHEME) throw new SignatureError(`unsupported signature scheme ${signature.scheme}`);
    if (
      !isBytes(signature.keyId) ||
      !isBytes(signature.bytes) ||
      signature.keyId.length !== KEY_ID_LENGTH ||
      signature.bytes.length !== SIGNATURE_LENGTH
    ) {
      throw new SignatureError('malformed Ed25519 signature');
    }
    const record = this.#records.get(toHex(signature.keyId));
    if (record === undefined) throw new SignatureError('signing key is not enrolled');
    if (record.revoked) throw new SignatureError('signing key is revoked');
    if (atMicros !== undefined) {
      if (atMicros < record.validFromMicros) throw new SignatureError('signing key is not yet valid');
      if (record.validToMicros !== undefined && atMicros >= record.validToMicros) {
        throw new SignatureError('signing key has expired');
      }
    }
    return { record, signature, input: subject.input(signature.context) };
  }

  // Not async: a synchronous back end's verdict is returned as it is and an asynchronous one's
  // gets one promise chained on, instead of an async frame per level. Callers are async
  // methods that await the answer, so a rule that throws in #prepare still becomes a rejection.
  #verify(subject: Subject, atMicros: bigint | undefined): KeyRecord | Promise<KeyRecord> {
    const { record, signature, input } = this.#prepare(subject, atMicros);
    const verdict = (ok: boolean): KeyRecord => {
      if (!ok) throw new SignatureError('signature verification failed');
      return record;
    };
    const check = (backend: Ed25519Backend, data: Uint8Array): Promise<KeyRecord> =>
      backend.verify(stableVerifyingKey(record), data, signature.bytes).then(verdict);
    const pending = backendFor(this.#backend);
    // `input` may be the shared preimage buffer, which back ends read at the call: a call
    // deferred behind the back-end probe gets a copy.
    if (pending instanceof Promise) {
      const stable = input.slice();
      return pending.then((backend) => check(backend, stable));
    }
    if (pending.verifySync !== undefined) return verdict(pending.verifySync(stableVerifyingKey(record), input, signature.bytes));
    return check(pending, input);
  }

  #verifySync(subject: Subject, atMicros: bigint | undefined): KeyRecord {
    const { record, signature, input } = this.#prepare(subject, atMicros);
    if (!syncBackendFor(this.#backend).verifySync(stableVerifyingKey(record), input, signature.bytes)) {
      throw new SignatureError('signature verification failed');
    }
    return record;
  }
}

function registryKeyArgument(keyId: Uint8Array | string): string {
  if (typeof keyId === 'string') {
    if (!/^[0-9a-f]{16}$/.test(keyId)) throw new SignatureError('Ed25519 key id must be 8 bytes');
    return keyId;
  }
  if (!isBytes(keyId) || keyId.length !== KEY_ID_LENGTH) throw new SignatureError('Ed25519 key id must be 8 bytes');
  return toHex(keyId);
}

function checkObserved(signature: Signature | undefined, observed: ObservedHeaders): void {
  if (signature === undefined) throw new SignatureError('envelope is not signed');
  const context = signature.context;
  if (context === undefined) throw new SignatureError('signature does not bind record headers');
  const seen = observedContext(observed);
  if (context.contentType !== seen.contentType || context.agentVersion !== seen.agentVersion) {
    throw new SignatureError('signature context differs from record headers');
  }
}
