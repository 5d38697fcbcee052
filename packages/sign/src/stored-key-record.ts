import { CodecError } from '@agdx/wire';
import { decode } from 'cbor2';
import { bytesEqual, isBytes } from './bytes.js';
import { CborWriter } from './cbor-writer.js';
import { SignatureError } from './errors.js';
import { KEY_ID_LENGTH, keyIdOf, VERIFYING_KEY_LENGTH } from './key-id.js';
import { isKeyKind } from './key-kind.js';
import type { KeyKind } from './key-kind.js';
import { KeyRecord } from './key-record.js';
import { MAX_KEY_RECORD_BYTES } from './cbor-caps.js';

/** Version of the stored key-record layout this package reads and writes. */
export const STORED_KEY_RECORD_VERSION = 1;

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const SURFACE = 'key record';

/**
 * A stored key record as decoded, before the key id is checked against the verifying key
 * (the managed registry compares it with its storage key; {@link keyRecordFromStored} checks
 * it against the key itself).
 */
export interface StoredKeyRecord {
  /** Layout version (always 1 once decoded). */
  readonly v: number;
  /** The principal (non-empty). */
  readonly principal: string;
  /** The stored 8-byte key id. */
  readonly keyId: Uint8Array;
  /** The 32-byte verifying key. */
  readonly verifyingKey: Uint8Array;
  /** `agent` or `operator`. */
  readonly kind: KeyKind;
  /** Start of validity, inclusive (epoch µs). */
  readonly validFromMicros: bigint;
  /** End of validity, exclusive (epoch µs), when bounded. */
  readonly validToMicros?: bigint;
  /** Whether the key is revoked. */
  readonly revoked: boolean;
}

/** What the stored form needs: a {@link KeyRecord} or a decoded {@link StoredKeyRecord}. */
export interface StorableKeyRecord {
  /** The principal. */
  readonly principal: string;
  /** The 8-byte key id written as `key_id`. */
  readonly keyId: Uint8Array;
  /** The 32-byte verifying key. */
  readonly verifyingKey: Uint8Array;
  /** `agent` or `operator`. */
  readonly kind: KeyKind;
  /** Start of validity (epoch µs). */
  readonly validFromMicros: bigint;
  /** End of validity (epoch µs), when bounded. */
  readonly validToMicros?: bigint | undefined;
  /** Whether the key is revoked. */
  readonly revoked: boolean;
}

/**
 * The stored CBOR of a key record (the value the managed registry keeps under `agent.keys`):
 * a map `v`, `principal`, `key_id`, `verifying_key`, `kind`, `valid_from_micros`,
 * `valid_to_micros` (only when bounded), `revoked`, in that order.
 */
export function encodeStoredKeyRecord(record: StorableKeyRecord): Uint8Array {
  const bounded = record.validToMicros !== undefined;
  const w = new CborWriter().map(bounded ? 8 : 7);
  w.text('v').uint(STORED_KEY_RECORD_VERSION);
  w.text('principal').text(record.principal);
  w.text('key_id').bytes(record.keyId);
  w.text('verifying_key').bytes(record.verifyingKey);
  w.text('kind').text(record.kind);
  w.text('valid_from_micros').uint(record.validFromMicros);
  if (record.validToMicros !== undefined) w.text('valid_to_micros').uint(record.validToMicros);
  w.text('revoked').bool(record.revoked);
  return w.finish();
}

function codec(field: string, message: string): CodecError {
  return new CodecError(message, { context: { surface: SURFACE, operation: field } });
}

function field(map: Map<unknown, unknown>, name: string, required: boolean): unknown {
  if (!map.has(name)) {
    if (required) throw codec(name, `missing required field \`${name}\` in key record`);
    return undefined;
  }
  return map.get(name);
}

function uintField(map: Map<unknown, unknown>, name: string, required: boolean): bigint | undefined {
  const value = field(map, name, required);
  if (value === undefined && !required) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n && value <= U64_MAX) return value;
  throw codec(name, `field \`${name}\` in key record must be an unsigned integer`);
}

function textField(map: Map<unknown, unknown>, name: string): string {
  const value = field(map, name, true);
  if (typeof value !== 'string') throw codec(name, `field \`${name}\` in key record must be a text string`);
  return value;
}

function bytesField(map: Map<unknown, unknown>, name: string): Uint8Array {
  const value = field(map, name, true);
  if (!isBytes(value)) throw codec(name, `field \`${name}\` in key record must be a byte string`);
  return value;
}

/**
 * Decodes stored key-record CBOR. The stored key id is returned as found; use
 * {@link keyRecordFromStored} to also require that it matches the verifying key.
 *
 * @throws CodecError for malformed CBOR, a non-map, a missing field, a field of the wrong type, or
 *   more than {@link MAX_KEY_RECORD_BYTES} bytes (refused before decoding).
 * @throws SignatureError `unsupported key record version`, `invalid key kind`,
 *   `key principal must not be empty`, `Ed25519 key id must be 8 bytes`,
 *   `Ed25519 public key must be 32 bytes`, `key validity end must be after its start`.
 */
export function decodeStoredKeyRecord(bytes: Uint8Array): StoredKeyRecord {
  if (!isBytes(bytes)) throw new CodecError('key record must be bytes', { context: { surface: SURFACE } });
  if (bytes.length > MAX_KEY_RECORD_BYTES) {
    throw new CodecError(`key record is ${bytes.length}B, exceeds cap ${MAX_KEY_RECORD_BYTES}B`, { context: { surface: SURFACE, cap: MAX_KEY_RECORD_BYTES } });
  }
  let value: unknown;
  try {
    value = decode(bytes, { preferMap: true, rejectDuplicateKeys: true, rejectStreaming: true, rejectUndefined: true });
  } catch (cause) {
    throw new CodecError('key record is not valid CBOR', { cause, context: { surface: SURFACE } });
  }
  if (!(value instanceof Map)) throw new CodecError('key record must be a CBOR map', { context: { surface: SURFACE } });
  const v = uintField(value, 'v', true)!;
  const principal = textField(value, 'principal');
  const keyId = bytesField(value, 'key_id');
  const verifyingKey = bytesField(value, 'verifying_key');
  const kind = textField(value, 'kind');
  const validFromMicros = uintField(value, 'valid_from_micros', true)!;
  const validToMicros = uintField(value, 'valid_to_micros', false);
  const revoked = field(value, 'revoked', true);
  if (typeof revoked !== 'boolean') throw codec('revoked', 'field `revoked` in key record must be a boolean');

  if (v !== BigInt(STORED_KEY_RECORD_VERSION)) throw new SignatureError('unsupported key record version');
  if (!isKeyKind(kind)) throw new SignatureError('invalid key kind');
  if (principal.length === 0) throw new SignatureError('key principal must not be empty');
  if (keyId.length !== KEY_ID_LENGTH) throw new SignatureError('Ed25519 key id must be 8 bytes');
  if (verifyingKey.length !== VERIFYING_KEY_LENGTH) throw new SignatureError('Ed25519 public key must be 32 bytes');
  if (validToMicros !== undefined && validToMicros <= validFromMicros) {
    throw new SignatureError('key validity end must be after its start');
  }
  const base = {
    v: STORED_KEY_RECORD_VERSION,
    principal,
    keyId: keyId.slice(),
    verifyingKey: verifyingKey.slice(),
    kind,
    validFromMicros,
    revoked,
  };
  return validToMicros === undefined ? base : { ...base, validToMicros };
}

/**
 * Turns a decoded stored record into a {@link KeyRecord}.
 *
 * @throws SignatureError `key record identifier does not match its verifying key`.
 */
export function keyRecordFromStored(stored: StoredKeyRecord): KeyRecord {
  if (!bytesEqual(stored.keyId, keyIdOf(stored.verifyingKey))) {
    throw new SignatureError('key record identifier does not match its verifying key');
  }
  const init = {
    principal: stored.principal,
    verifyingKey: stored.verifyingKey,
    kind: stored.kind,
    validFromMicros: stored.validFromMicros,
    revoked: stored.revoked,
  };
  return new KeyRecord(stored.validToMicros === undefined ? init : { ...init, validToMicros: stored.validToMicros });
}

/** Decodes stored CBOR straight into a checked {@link KeyRecord}. */
export function decodeKeyRecord(bytes: Uint8Array): KeyRecord {
  return keyRecordFromStored(decodeStoredKeyRecord(bytes));
}
