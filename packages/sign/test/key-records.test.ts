import { describe, expect, it } from 'vitest';
import {
  decodeKeyRecord,
  decodeStoredKeyRecord,
  encodeStoredKeyRecord,
  KeyKind,
  KeyRecord,
  KeyRegistry,
  keyRecordFromStored,
  DEFAULT_KEY_NAMESPACE,
  recordsFromStoredEntries,
  revokedStoredKeyRecord,
  SignatureError,
} from '@agdx/sign';
import type { StoredKeyRecord } from '@agdx/sign';
import { BACKENDS, expectOracleError, hex, oracle, thrown, toHex, upstream } from './support/fixtures.js';
import type { OracleError, OracleRecord } from './support/fixtures.js';
import { recordFrom } from './support/registry.js';

interface LogicalStored {
  v: number;
  principal: string;
  keyId: { hex: string };
  verifyingKey: { hex: string };
  kind: string;
  validFromMicros: string;
  validToMicros?: string;
  revoked: boolean;
}
interface KvCase {
  id: string;
  record: OracleRecord;
  namespace: string;
  kv_key: string;
  writes: { namespace: string; key_utf8: string; value_hex: string; cas: string; version: string }[];
  decoded: LogicalStored;
  revoke_ok: boolean;
  revoke_again_version: string;
  rebuilt_registry_verify_after_revoke: string;
}
interface DecodeCase {
  id: string;
  name: string;
  cbor_hex: string;
  ok: boolean;
  result?: LogicalStored;
  error?: OracleError;
}
interface RecordErrorCase {
  id: string;
  name: string;
  ok: boolean;
  error: OracleError;
}

const signing = oracle('signing.json');
const kvCases = signing.sections['kv_key_records'] as KvCase[];
const decodeCases = signing.sections['stored_key_record_decode'] as DecodeCase[];
const recordErrors = signing.sections['key_record_errors'] as RecordErrorCase[];

function logical(stored: StoredKeyRecord): LogicalStored {
  const out: LogicalStored = {
    v: stored.v,
    principal: stored.principal,
    keyId: { hex: toHex(stored.keyId) },
    verifyingKey: { hex: toHex(stored.verifyingKey) },
    kind: stored.kind,
    validFromMicros: stored.validFromMicros.toString(),
    revoked: stored.revoked,
  };
  if (stored.validToMicros !== undefined) out.validToMicros = stored.validToMicros.toString();
  return out;
}

// A minimal signed envelope naming `keyId`: the revoked check comes before any signature math.
function envelopeSignedBy(keyId: Uint8Array): Uint8Array {
  const capsule = [0xa3, 0x66, ...new TextEncoder().encode('scheme'), 0x01, 0x66, ...new TextEncoder().encode('key_id'), 0x48, ...keyId,
    0x65, ...new TextEncoder().encode('bytes'), 0x58, 0x40, ...new Uint8Array(64)];
  return Uint8Array.from([0xa1, 0x69, ...new TextEncoder().encode('signature'), ...capsule]);
}

describe('signing.json kv_key_records', () => {
  it.each(kvCases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const record = recordFrom(c.record);
    expect(record.registryKey).toBe(c.kv_key);
    expect(c.writes.map((w) => w.cas)).toEqual(['absent', '1', '2']);
    for (const w of c.writes) {
      expect(w.namespace).toBe(c.namespace);
      expect(w.key_utf8).toBe(c.kv_key);
    }
    // enroll (expect-absent), re-enroll (expect-version), revoke: the stored values.
    expect(toHex(encodeStoredKeyRecord(record))).toBe(c.writes[0]!.value_hex);
    expect(toHex(encodeStoredKeyRecord(record))).toBe(c.writes[1]!.value_hex);
    expect(toHex(encodeStoredKeyRecord(record.revoke()))).toBe(c.writes[2]!.value_hex);
    expect(logical(decodeStoredKeyRecord(hex(c.writes[0]!.value_hex)))).toEqual(c.decoded);
    // A registry rebuilt from the last stored value refuses the key.
    for (const backend of BACKENDS) {
      const registry = new KeyRegistry({ backend });
      registry.enrollRecord(decodeKeyRecord(hex(c.writes[2]!.value_hex)));
      const error = await thrown(() => registry.verifyEncoded(envelopeSignedBy(record.keyId)));
      expect((error as Error).message).toBe(c.rebuilt_registry_verify_after_revoke);
    }
    // The managed registry's write sequence, as pure functions over the stored values.
    expect(typeof c.namespace).toBe('string');
    const revokedValue = revokedStoredKeyRecord(c.kv_key, hex(c.writes[1]!.value_hex));
    expect(toHex(revokedValue!)).toBe(c.writes[2]!.value_hex);
    // Revoking again writes nothing: the version stays where the revocation left it.
    expect(revokedStoredKeyRecord(record.keyId, hex(c.writes[2]!.value_hex))).toBeUndefined();
    expect(c.revoke_again_version).toBe(c.writes[2]!.version);
    const snapshot = recordsFromStoredEntries([{ key: c.kv_key, value: hex(c.writes[2]!.value_hex) }]);
    expect(snapshot.records.map((r) => [r.registryKey, r.revoked])).toEqual([[c.kv_key, true]]);
    // Revoking twice is harmless (the managed registry then writes nothing).
    const registry = new KeyRegistry();
    registry.enrollRecord(record);
    expect(registry.revoke(record.keyId).revoked).toBe(c.revoke_ok);
    expect(registry.revoke(record.registryKey)).toBe(registry.get(record.keyId));
  });
});

describe('signing.json stored_key_record_decode', () => {
  it.each(decodeCases.map((c) => [c.id, c.name, c] as const))('%s %s', async (_id, _name, c) => {
    const bytes = hex(c.cbor_hex);
    if (c.ok) {
      const stored = decodeStoredKeyRecord(bytes);
      expect(logical(stored)).toEqual(c.result);
    } else {
      expectOracleError(await thrown(() => decodeStoredKeyRecord(bytes)), c.error!);
    }
  });
});

// These cases name a fixed scenario and its expected error; the scenario's input is the name.
const RECORD_ERROR_SCENARIOS: Record<string, () => unknown> = {
  'empty-principal': () => new KeyRecord({ principal: '', verifyingKey: new Uint8Array(32) }),
  'pk-31B': () => KeyRecord.fromVerifyingBytes('p', new Uint8Array(31)),
  'pk-33B': () => KeyRecord.fromVerifyingBytes('p', new Uint8Array(33)),
  'window-empty': () => KeyRecord.agent('p', new Uint8Array(32)).validWindow(100n, 100n),
  'window-reversed': () => KeyRecord.agent('p', new Uint8Array(32)).validWindow(200n, 100n),
};

describe('signing.json key_record_errors', () => {
  it.each(recordErrors.map((c) => [c.id, c.name, c] as const))('%s %s', async (_id, name, c) => {
    const scenario = RECORD_ERROR_SCENARIOS[name];
    expect(scenario, `unknown key_record_errors scenario ${name}`).toBeDefined();
    expect(c.ok).toBe(false);
    expectOracleError(await thrown(scenario!), c.error);
  });
});

describe('upstream key_record.bin', () => {
  const bytes = upstream('key_record.bin');
  it('decodes as DIAGNOSTIC.txt shows and re-encodes byte for byte', () => {
    const stored = decodeStoredKeyRecord(bytes);
    expect(logical(stored)).toEqual({
      v: 1,
      principal: 'operator-1',
      keyId: { hex: '03'.repeat(8) },
      verifyingKey: { hex: '07'.repeat(32) },
      kind: 'operator',
      validFromMicros: '100',
      validToMicros: '200',
      revoked: false,
    });
    expect(toHex(encodeStoredKeyRecord(stored))).toBe(toHex(bytes));
  });
  it('is refused as a registry record: its key id is not derived from its key', async () => {
    const error = await thrown(() => keyRecordFromStored(decodeStoredKeyRecord(bytes)));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as Error).message).toBe('key record identifier does not match its verifying key');
  });
});

describe('managed registry records', () => {
  const good = encodeStoredKeyRecord(KeyRecord.operator('ops', hex('3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29')));
  it('names the default namespace', () => expect(DEFAULT_KEY_NAMESPACE).toBe('agent.keys'));
  it('snapshots skip undecodable entries and entries under another key', () => {
    const snapshot = recordsFromStoredEntries([
      { key: '139e3940e64b5491', value: good },
      { key: '0000000000000000', value: good },
      { key: 'junk', value: Uint8Array.of(0xff) },
      { key: 'key-record-bin', value: upstream('key_record.bin') },
    ]);
    expect(snapshot.records.map((r) => r.principal)).toEqual(['ops']);
    expect(snapshot.skipped).toEqual(['0000000000000000', 'junk', 'key-record-bin']);
  });
  it('revocation refuses missing records, bad ids and records under another key', async () => {
    expect(((await thrown(() => revokedStoredKeyRecord('139e3940e64b5491', undefined))) as Error).message).toBe('signing key is not enrolled');
    expect(((await thrown(() => revokedStoredKeyRecord(new Uint8Array(7), good))) as Error).message).toBe('Ed25519 key id must be 8 bytes');
    expect(((await thrown(() => revokedStoredKeyRecord('0000000000000000', good))) as Error).message).toBe(
      'key record identifier differs from its storage key',
    );
  });
});

describe('KeyRecord', () => {
  const vk = hex('3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29');
  it('fromVerifyingBytes binds principal, kind and the derived key id', () => {
    const r = KeyRecord.fromVerifyingBytes('planner', vk, KeyKind.Operator);
    expect(r.principal).toBe('planner');
    expect(r.kind).toBe('operator');
    expect(r.registryKey).toBe('139e3940e64b5491');
    expect(r.validFromMicros).toBe(0n);
    expect(r.validToMicros).toBeUndefined();
    expect(r.revoked).toBe(false);
    expect(toHex(r.verifyingKey)).toBe(toHex(vk));
  });
  it('round-trips a bounded window through the stored CBOR', () => {
    const r = KeyRecord.agent('a', vk).validWindow(5, 10n);
    const back = decodeKeyRecord(encodeStoredKeyRecord(r));
    expect([back.validFromMicros, back.validToMicros, back.kind]).toEqual([5n, 10n, 'agent']);
  });
  it('rejects bad kinds and times with typed errors', async () => {
    expect(await thrown(() => new KeyRecord({ principal: 'p', verifyingKey: vk, kind: 'admin' as never }))).toBeInstanceOf(SignatureError);
    expect((await thrown(() => KeyRecord.agent('p', vk).validWindow(-1))) as Error).toHaveProperty('kind', 'invalid');
    expect((await thrown(() => KeyRecord.agent('p', vk).validWindow(1.5))) as Error).toHaveProperty('kind', 'invalid');
    expect((await thrown(() => KeyRecord.agent('p', vk).validWindow(2n ** 64n))) as Error).toHaveProperty('kind', 'invalid');
  });
  it('decodes hostile bytes into typed errors only', async () => {
    for (const input of ['', 'ff', 'a1', '80', 'a16176f5', 'bf6176']) {
      const error = await thrown(() => decodeStoredKeyRecord(hex(input)));
      expect((error as { kind?: string }).kind).toMatch(/^(codec|signature)$/);
    }
  });
});
