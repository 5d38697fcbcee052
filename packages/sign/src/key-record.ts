import { isBytes, toHex } from './bytes.js';
import { SignatureError } from './errors.js';
import { keyIdOf, VERIFYING_KEY_LENGTH } from './key-id.js';
import { isKeyKind, KeyKind } from './key-kind.js';
import { toMicros } from './micros.js';
import type { Micros } from './micros.js';

/** Fields of a {@link KeyRecord}; everything but `principal` and `verifyingKey` has a default. */
export interface KeyRecordInit {
  /** The authenticated principal the key speaks for (non-empty). */
  readonly principal: string;
  /** The 32-byte Ed25519 verifying key. */
  readonly verifyingKey: Uint8Array;
  /** Default `agent`. */
  readonly kind?: KeyKind;
  /** Start of validity, inclusive, epoch microseconds. Default 0. */
  readonly validFromMicros?: Micros;
  /** End of validity, exclusive, epoch microseconds. Open-ended when absent. */
  readonly validToMicros?: Micros;
  /** Default false. A revoked key verifies nothing, whatever its window. */
  readonly revoked?: boolean;
}

// The record's own never-mutated key array, for package-internal use: its identity lets the
// WebCrypto back end cache the imported key, which `verifyingKey` (a fresh copy) cannot.
const stableKeys = new WeakMap<KeyRecord, Uint8Array>();

/** Package-internal: the record's stable verifying-key array (never hand it out). */
export function stableVerifyingKey(record: KeyRecord): Uint8Array {
  return stableKeys.get(record)!;
}

/**
 * Binds one Ed25519 verifying key to a principal, a {@link KeyKind} and an optional validity
 * window `[validFromMicros, validToMicros)`. Immutable: modifiers return copies.
 */
export class KeyRecord {
  /** The principal the key speaks for. */
  readonly principal: string;
  /** `agent` or `operator`. */
  readonly kind: KeyKind;
  /** Start of validity, inclusive (epoch µs). */
  readonly validFromMicros: bigint;
  /** End of validity, exclusive (epoch µs); undefined = open-ended. */
  readonly validToMicros: bigint | undefined;
  /** Whether the key was revoked. */
  readonly revoked: boolean;
  /** Lowercase hex of the key id: the registry and key-value key of this record. */
  readonly registryKey: string;
  readonly #verifyingKey: Uint8Array;
  readonly #keyId: Uint8Array;

  /**
   * @throws SignatureError `key principal must not be empty`, `Ed25519 public key must be 32 bytes`,
   *   `invalid key kind`, `key validity end must be after its start`.
   * @throws InvalidError for a malformed time (negative, fractional, beyond u64).
   */
  constructor(init: KeyRecordInit) {
    if (typeof init !== 'object' || init === null) throw new SignatureError('key record must be an object');
    if (typeof init.principal !== 'string' || init.principal.length === 0) {
      throw new SignatureError('key principal must not be empty');
    }
    if (!isBytes(init.verifyingKey) || init.verifyingKey.length !== VERIFYING_KEY_LENGTH) {
      throw new SignatureError('Ed25519 public key must be 32 bytes');
    }
    const kind = init.kind ?? KeyKind.Agent;
    if (!isKeyKind(kind)) throw new SignatureError('invalid key kind');
    const from = toMicros(init.validFromMicros ?? 0n, 'validFromMicros');
    const to = init.validToMicros === undefined ? undefined : toMicros(init.validToMicros, 'validToMicros');
    if (to !== undefined && to <= from) throw new SignatureError('key validity end must be after its start');
    this.principal = init.principal;
    this.kind = kind;
    this.validFromMicros = from;
    this.validToMicros = to;
    this.revoked = init.revoked === true;
    this.#verifyingKey = init.verifyingKey.slice();
    this.#keyId = keyIdOf(this.#verifyingKey);
    this.registryKey = toHex(this.#keyId);
    stableKeys.set(this, this.#verifyingKey);
    Object.freeze(this);
  }

  /**
   * Builds a record from the 32 verifying-key bytes a signer published.
   *
   * @throws SignatureError as the constructor does.
   */
  static fromVerifyingBytes(principal: string, verifyingKey: Uint8Array, kind: KeyKind = KeyKind.Agent): KeyRecord {
    return new KeyRecord({ principal, verifyingKey, kind });
  }

  /** An `agent` record with an open window. */
  static agent(principal: string, verifyingKey: Uint8Array): KeyRecord {
    return new KeyRecord({ principal, verifyingKey, kind: KeyKind.Agent });
  }

  /** An `operator` record with an open window. */
  static operator(principal: string, verifyingKey: Uint8Array): KeyRecord {
    return new KeyRecord({ principal, verifyingKey, kind: KeyKind.Operator });
  }

  /** The 32-byte verifying key (a fresh copy). */
  get verifyingKey(): Uint8Array {
    return this.#verifyingKey.slice();
  }

  /** The 8-byte key id, first 8 bytes of SHA-256 of the verifying key (a fresh copy). */
  get keyId(): Uint8Array {
    return this.#keyId.slice();
  }

  /** A copy valid in `[from, to)` (to omitted: open-ended). */
  validWindow(from: Micros, to?: Micros): KeyRecord {
    return new KeyRecord({ ...this.#init(), validFromMicros: from, validToMicros: to });
  }

  /** A revoked copy. */
  revoke(): KeyRecord {
    return new KeyRecord({ ...this.#init(), revoked: true });
  }

  /** The fields as a plain init object (fresh key copy). */
  toInit(): KeyRecordInit {
    return this.#init();
  }

  #init(): KeyRecordInit {
    const base = {
      principal: this.principal,
      verifyingKey: this.verifyingKey,
      kind: this.kind,
      validFromMicros: this.validFromMicros,
      revoked: this.revoked,
    };
    return this.validToMicros === undefined ? base : { ...base, validToMicros: this.validToMicros };
  }
}
