import { describe, expect, it } from 'vitest';
import { keyIdOf, registryKeyOf, SignatureError, SigningKey } from '@agdx/sign';
import { BACKENDS, expectOracleError, hex, oracle, thrown, toHex } from './support/fixtures.js';
import type { OracleError } from './support/fixtures.js';

interface KeyCase {
  id: string;
  seed_hex: string;
  verifying_key_hex: string;
  key_id_hex: string;
  registry_key: string;
  sign_bytes_vectors: { message_hex: string; signature_hex: string }[];
}
interface BadSeedCase {
  id: string;
  seed_hex_len: number;
  ok: boolean;
  error: OracleError;
}

const signing = oracle('signing.json');
const keys = signing.sections['keys'] as KeyCase[];
const badSeeds = signing.sections['bad_seeds'] as BadSeedCase[];

describe.each(BACKENDS)('signing.json keys (%s back end)', (backend) => {
  it.each(keys.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const key = SigningKey.fromBytes(hex(c.seed_hex), { backend });
    expect(toHex(key.verifyingKey)).toBe(c.verifying_key_hex);
    expect(toHex(key.keyId)).toBe(c.key_id_hex);
    expect(key.registryKey).toBe(c.registry_key);
    expect(toHex(keyIdOf(hex(c.verifying_key_hex)))).toBe(c.key_id_hex);
    expect(registryKeyOf(hex(c.verifying_key_hex))).toBe(c.registry_key);
    expect(c.sign_bytes_vectors.length).toBeGreaterThan(0);
    for (const v of c.sign_bytes_vectors) {
      expect(toHex(await key.signBytes(hex(v.message_hex)))).toBe(v.signature_hex);
      expect(toHex(key.signBytesSync(hex(v.message_hex)))).toBe(v.signature_hex);
    }
  });
});

describe('signing.json bad_seeds', () => {
  it.each(badSeeds.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    expect(c.ok).toBe(false);
    // Only the length matters: any seed that is not 32 bytes is refused before it is used.
    const seed = new Uint8Array(c.seed_hex_len).fill(7);
    expectOracleError(await thrown(() => SigningKey.fromBytes(seed)), c.error);
  });
});

describe('SigningKey bad input', () => {
  it('rejects non-bytes and non-hex seeds with SignatureError', async () => {
    expect(await thrown(() => SigningKey.fromBytes('00' as never))).toBeInstanceOf(SignatureError);
    expect(await thrown(() => SigningKey.fromHex('zz'.repeat(32)))).toBeInstanceOf(SignatureError);
    expect(await thrown(() => SigningKey.fromHex('00'.repeat(31)))).toBeInstanceOf(SignatureError);
  });
  it('generates distinct keys that sign and report their ids', async () => {
    const a = SigningKey.generate();
    const b = SigningKey.generate();
    expect(toHex(a.verifyingKey)).not.toBe(toHex(b.verifyingKey));
    expect(a.keyId).toHaveLength(8);
    expect(await a.signBytes(new Uint8Array(3))).toHaveLength(64);
  });
  it('hands out copies of its key material', () => {
    const key = SigningKey.fromHex('11'.repeat(32));
    key.verifyingKey.fill(0);
    key.keyId.fill(0);
    expect(toHex(key.verifyingKey)).not.toBe('00'.repeat(32));
    expect(toHex(key.keyId)).toBe(key.registryKey);
  });
});
