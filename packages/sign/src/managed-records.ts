import { isBytes, toHex } from './bytes.js';
import { SignatureError } from './errors.js';
import { KEY_ID_LENGTH } from './key-id.js';
import type { KeyRecord } from './key-record.js';
import { decodeKeyRecord, decodeStoredKeyRecord, encodeStoredKeyRecord } from './stored-key-record.js';

/** Key-value namespace of the managed key registry (0.1.1 default; newer servers scope it per stream). */
export const DEFAULT_KEY_NAMESPACE = 'agent.keys';

/** An entry read from the managed registry namespace: its key-value key and stored value. */
export interface StoredKeyEntry {
  /** The key-value key: lowercase hex of the record's key id. */
  readonly key: string;
  /** The stored key-record CBOR. */
  readonly value: Uint8Array;
}

/** What reading a managed registry namespace produced. */
export interface StoredKeySnapshot {
  /** Records that decoded and sit under their own key id. */
  readonly records: KeyRecord[];
  /** Keys of entries left out: undecodable, or stored under another key id. */
  readonly skipped: string[];
}

/**
 * Reads the entries of a managed registry namespace the way the managed registry builds its
 * snapshot: entries that fail to decode, whose key id does not match their verifying key, or
 * whose key-value key differs from their key id are skipped (and reported).
 */
export function recordsFromStoredEntries(entries: Iterable<StoredKeyEntry>): StoredKeySnapshot {
  const records: KeyRecord[] = [];
  const skipped: string[] = [];
  for (const entry of entries) {
    try {
      const record = decodeKeyRecord(entry.value);
      if (record.registryKey === entry.key) {
        records.push(record);
        continue;
      }
    } catch {
      // An undecodable entry must not hide the others; it is reported below.
    }
    skipped.push(String(entry.key));
  }
  return { records, skipped };
}

/**
 * The value a managed-registry revocation writes for the key id `keyId` (8 bytes or its hex), given
 * the currently stored value: the revoked record's CBOR, or undefined when it is already revoked
 * (nothing to write). The caller writes it with compare-and-set on the version it read.
 *
 * @throws SignatureError `Ed25519 key id must be 8 bytes`, `signing key is not enrolled` (no stored
 *   value), `key record identifier differs from its storage key`, and the stored-record errors.
 */
export function revokedStoredKeyRecord(keyId: Uint8Array | string, stored: Uint8Array | undefined): Uint8Array | undefined {
  let key: string;
  if (typeof keyId === 'string' && /^[0-9a-f]{16}$/.test(keyId)) key = keyId;
  else if (isBytes(keyId) && keyId.length === KEY_ID_LENGTH) key = toHex(keyId);
  else throw new SignatureError('Ed25519 key id must be 8 bytes');
  if (stored === undefined) throw new SignatureError('signing key is not enrolled');
  const record = decodeStoredKeyRecord(stored);
  if (toHex(record.keyId) !== key) throw new SignatureError('key record identifier differs from its storage key');
  if (record.revoked) return undefined;
  return encodeStoredKeyRecord({ ...record, revoked: true });
}
