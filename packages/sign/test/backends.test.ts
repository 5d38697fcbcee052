import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { AgentEnvelope, AgdxError, ConversationId, AgentId, RecordId, CorrelationId } from '@agdx/wire';
import type { HeaderValue } from '@agdx/wire';
import {
  ed25519BackendChoice,
  keyIdOf,
  KeyRecord,
  KeyRegistry,
  pkcs8FromSeed,
  resolveEd25519Backend,
  setEd25519Backend,
  SignatureError,
  SigningKey,
  delegatedAllow,
  grantsAllow,
  verifyDelegation,
} from '@agdx/sign';
import type { Grant, Signer, Verifier } from '@agdx/sign';
import { BACKENDS, thrown, toHex } from './support/fixtures.js';

function seeded(n: number): Uint8Array {
  // xorshift: deterministic test inputs without a dependency.
  let x = 0x9e3779b9 ^ n;
  return Uint8Array.from({ length: 32 + (n % 200) }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

function sampleEnvelope(body = 'hi', metadata?: Map<string, string>): AgentEnvelope {
  let env = AgentEnvelope.command(
    RecordId.fromBigInt(1n),
    ConversationId.fromBigInt(2n),
    AgentId.new('planner'),
    CorrelationId.fromBigInt(3n),
    new TextEncoder().encode(body),
  );
  if (metadata !== undefined) env = env.withMetadata(metadata);
  return env;
}

describe('back ends agree (differential)', () => {
  it('every back end gives identical signatures, and each verifies the others', async () => {
    for (let n = 0; n < 40; n++) {
      const material = seeded(n);
      const seed = material.subarray(0, 32);
      const message = material.subarray(32);
      const keys = BACKENDS.map((backend) => SigningKey.fromBytes(seed, { backend }));
      const signatures = await Promise.all(keys.map((key) => key.signBytes(message)));
      const expected = toHex(ed25519.sign(message, seed));
      for (const [i, key] of keys.entries()) {
        expect(toHex(signatures[i]!), BACKENDS[i]).toBe(expected);
        expect(toHex(key.signBytesSync(message)), BACKENDS[i]).toBe(expected);
      }
    }
    // Verification across back ends: envelopes signed by one, verified by every other, sync and async.
    const env = sampleEnvelope('cross');
    for (const signer of BACKENDS) {
      const key = SigningKey.fromHex('17'.repeat(32), { backend: signer });
      const signed = await key.sign(env, { contentType: 1, agentVersion: 1 });
      for (const verifier of BACKENDS) {
        const registry = new KeyRegistry({ backend: verifier });
        registry.enroll('p', key.verifyingKey);
        expect(await registry.verify(signed), `${signer} -> ${verifier}`).toBe('p');
        expect(registry.verifySync(signed), `${signer} -> ${verifier} (sync)`).toBe('p');
        const tampered = signed.withSignature({ ...signed.signature!, bytes: signed.signature!.bytes.map((b, i) => (i === 5 ? b ^ 1 : b)) });
        await expect(registry.verify(tampered)).rejects.toThrow('signature verification failed');
        expect(() => registry.verifySync(tampered)).toThrow('signature verification failed');
      }
    }
  });
  it('the cached-expansion noble signer matches @noble/curves ed25519.sign byte for byte', () => {
    for (let n = 0; n < 60; n++) {
      const material = seeded(1000 + n);
      const seed = material.slice(0, 32);
      const message = material.subarray(32);
      const key = SigningKey.fromBytes(seed, { backend: 'noble' });
      expect(toHex(key.verifyingKey)).toBe(toHex(ed25519.getPublicKey(seed)));
      expect(toHex(key.signBytesSync(message))).toBe(toHex(ed25519.sign(message, seed)));
    }
  });
  it('both back ends refuse a small-order key and a non-canonical S alike', async () => {
    const L = ed25519.Point.Fn.ORDER;
    const identity = new Uint8Array(32);
    identity[0] = 1;
    // With the identity as key and R, S = 0 satisfies the cofactored equation for every message.
    const trivial = new Uint8Array(64);
    trivial[0] = 1;
    const key = SigningKey.fromHex('33'.repeat(32));
    for (const backend of BACKENDS) {
      const registry = new KeyRegistry({ backend });
      registry.enroll('low', identity);
      registry.enroll('real', key.verifyingKey);
      const env = sampleEnvelope();
      const forged = env.withSignature({ scheme: 1, keyId: keyIdOf(identity), bytes: trivial });
      await expect(registry.verify(forged)).rejects.toThrow('signature verification failed');
      const signed = await key.sign(env);
      // S + L: the same point equation, but not the canonical S.
      const bytes = signed.signature!.bytes.slice();
      let v = 0n;
      for (let i = 63; i >= 32; i--) v = (v << 8n) | BigInt(bytes[i]!);
      v += L;
      for (let i = 32; i < 64; i++) {
        bytes[i] = Number(v & 0xffn);
        v >>= 8n;
      }
      await expect(registry.verify(signed.withSignature({ ...signed.signature!, bytes }))).rejects.toThrow('signature verification failed');
      expect(await registry.verify(signed)).toBe('real');
    }
  });
  it('wraps seeds into the fixed PKCS#8 prefix', () => {
    expect(toHex(pkcs8FromSeed(new Uint8Array(32)))).toBe(`302e020100300506032b657004220420${'00'.repeat(32)}`);
  });
  it('auto and platform pick node:crypto on Node, each back end can be forced, and the choice restored', async () => {
    expect(ed25519BackendChoice()).toBe('auto');
    expect(await resolveEd25519Backend()).toBe('node-crypto');
    expect(await resolveEd25519Backend('platform')).toBe('node-crypto');
    expect(await resolveEd25519Backend('webcrypto')).toBe('webcrypto');
    expect(await resolveEd25519Backend('node-crypto')).toBe('node-crypto');
    setEd25519Backend('noble');
    try {
      expect(await resolveEd25519Backend()).toBe('noble');
    } finally {
      setEd25519Backend('auto');
    }
    expect((await thrown(() => setEd25519Backend('fast' as never))) as AgdxError).toHaveProperty('kind', 'unsupported');
  });
});

describe.each(BACKENDS)('envelope signing round trips (%s)', (backend) => {
  const key = SigningKey.fromHex('42'.repeat(32), { backend });
  const registry = new KeyRegistry({ backend });
  registry.enroll('planner', key.verifyingKey);

  it('signs, verifies, and refuses every tampering', async () => {
    const signed = await key.sign(sampleEnvelope(), { contentType: 1, agentVersion: 1 });
    expect(await registry.verify(signed)).toBe('planner');
    const tampered = [
      signed.withBody(new TextEncoder().encode('ho')),
      signed.withTarget(AgentId.new('other')),
      signed.withSignature({ ...signed.signature!, context: { contentType: 2, agentVersion: 1 } }),
      signed.withSignature({ ...signed.signature!, context: undefined }),
      signed.withSignature({ ...signed.signature!, bytes: signed.signature!.bytes.map((b, i) => (i === 0 ? b ^ 1 : b)) }),
    ];
    for (const env of tampered) {
      await expect(registry.verify(env)).rejects.toThrow('signature verification failed');
      expect(() => registry.verifySync(env)).toThrow('signature verification failed');
    }
  });
  it('refuses out-of-range or non-numeric contexts with InvalidError', async () => {
    for (const context of [{ contentType: 256 }, { agentVersion: -1 }, { contentType: '1' as never }, { agentVersion: 1.5 }]) {
      expect(((await thrown(() => key.sign(sampleEnvelope(), context))) as AgdxError).kind).toBe('invalid');
    }
  });
  it('gives typed errors for malformed signatures and unknown schemes', async () => {
    const signed = key.signSync(sampleEnvelope());
    const cases: [AgentEnvelope, string][] = [
      [signed.withSignature({ ...signed.signature!, scheme: 7 }), 'unsupported signature scheme 7'],
      [signed.withSignature({ ...signed.signature!, keyId: new Uint8Array(3) }), 'malformed Ed25519 signature'],
      [signed.withSignature({ ...signed.signature!, bytes: new Uint8Array(63) }), 'malformed Ed25519 signature'],
      [signed.withSignature({ ...signed.signature!, keyId: new Uint8Array(8) }), 'signing key is not enrolled'],
      [sampleEnvelope(), 'envelope is not signed'],
    ];
    for (const [env, message] of cases) {
      const error = await thrown(() => registry.verify(env));
      expect(error).toBeInstanceOf(SignatureError);
      expect(AgdxError.is(error, 'signature')).toBe(true);
      expect((error as Error).message).toBe(message);
    }
  });
  it('refuses hostile encoded bytes with typed errors only', async () => {
    const good = (await key.sign(sampleEnvelope())).encode();
    for (let cut = 0; cut < good.length; cut += 7) {
      const error = await thrown(() => registry.verifyEncoded(good.subarray(0, cut)));
      expect(AgdxError.is(error)).toBe(true);
    }
    for (const junk of ['a1' as never, null as never, 5 as never]) {
      expect(AgdxError.is(await thrown(() => registry.verifyEncoded(junk)))).toBe(true);
      expect(AgdxError.is(await thrown(() => registry.verify(junk)))).toBe(true);
    }
    const flipped = good.slice();
    flipped[20] = flipped[20]! ^ 0x40;
    expect(AgdxError.is(await thrown(() => registry.verifyEncoded(flipped)))).toBe(true);
  });
  it('checks observed Iggy headers in either shape', async () => {
    const signed = await key.sign(sampleEnvelope(), { contentType: 1, agentVersion: 1 });
    const headers = new Map<string, HeaderValue>([
      ['agdx.ct', { kind: 'uint8', value: Uint8Array.of(1) }],
      ['agdx.av', { kind: 'uint32', value: Uint8Array.of(1, 0, 0, 0) }],
    ]);
    expect(await registry.verifyAt(signed, 1n, headers)).toEqual({ principal: 'planner', kind: 'agent' });
    headers.set('agdx.av', { kind: 'string', value: Uint8Array.of(0x31) });
    await expect(registry.verifyAt(signed, 1n, headers)).rejects.toThrow('signature context differs from record headers');
  });
  it('implements the structural Signer and Verifier shapes', async () => {
    const signer: Signer = key;
    const verifier: Verifier = registry;
    const signed = await signer.sign(sampleEnvelope());
    expect(await verifier.verifyAt(signed, 5n)).toEqual({ principal: 'planner', kind: 'agent' });
  });
  it('verifies delegation from signed metadata only', async () => {
    const signed = await key.sign(sampleEnvelope('x', new Map([['on_behalf_of', 'user:1']])));
    expect(await verifyDelegation(registry, signed)).toEqual({ signer: 'planner', user: 'user:1' });
    const forged = signed.withMetadata(new Map([['on_behalf_of', 'user:2']]));
    await expect(verifyDelegation(registry, forged)).rejects.toThrow('signature verification failed');
  });
  it('revocation wins over the window; windows are [from, to)', async () => {
    const reg = new KeyRegistry({ backend });
    reg.enrollRecord(KeyRecord.operator('ops', key.verifyingKey).validWindow(100n, 200n));
    const signed = await key.sign(sampleEnvelope());
    await expect(reg.verifyAt(signed, 99n)).rejects.toThrow('signing key is not yet valid');
    expect(await reg.verifyAt(signed, 100)).toEqual({ principal: 'ops', kind: 'operator' });
    expect(await reg.verifyAt(signed, 199n)).toEqual({ principal: 'ops', kind: 'operator' });
    await expect(reg.verifyAt(signed, 200n)).rejects.toThrow('signing key has expired');
    expect(await reg.verify(signed)).toBe('ops');
    reg.revoke(key.keyId);
    await expect(reg.verifyAt(signed, 150n)).rejects.toThrow('signing key is revoked');
    expect((await thrown(() => reg.revoke(new Uint8Array(7)))) as Error).toHaveProperty('message', 'Ed25519 key id must be 8 bytes');
    expect((await thrown(() => reg.revoke('zz'))) as Error).toHaveProperty('message', 'Ed25519 key id must be 8 bytes');
    expect((await thrown(() => reg.verifyAt(signed, -1n))) as Error).toHaveProperty('kind', 'invalid');
  });
});

describe('grants (8.6)', () => {
  const allow = (feature: string, action: Grant['action'], resource: Grant['resource']): Grant => ({ feature, action, resource, effect: 'allow' });
  const deny = (feature: string, action: Grant['action'], resource: Grant['resource']): Grant => ({ feature, action, resource, effect: 'deny' });
  it('needs a matching allow and no matching deny', () => {
    const grants = [allow('kv', 'read', { kind: 'prefix', value: 'orders' }), deny('kv', 'read', { kind: 'literal', value: 'orders.secret' })];
    expect(grantsAllow(grants, 'kv', 'read', 'orders.1')).toBe(true);
    expect(grantsAllow(grants, 'kv', 'read', 'ordersX')).toBe(true);
    expect(grantsAllow(grants, 'kv', 'read', 'orders.secret')).toBe(false);
    expect(grantsAllow(grants, 'kv', 'write', 'orders.1')).toBe(false);
    expect(grantsAllow(grants, 'kv', 'read')).toBe(false);
    expect(grantsAllow([allow('kv', 'read', { kind: 'all' })], 'kv', 'read')).toBe(true);
    expect(grantsAllow([], 'kv', 'read', 'x')).toBe(false);
  });
  it('delegated actions pass both the agent and the user grants', () => {
    const agent = [allow('memory', 'write', { kind: 'all' })];
    const user = [allow('memory', 'write', { kind: 'prefix', value: 'u1/' })];
    expect(delegatedAllow(agent, user, 'memory', 'write', 'u1/notes')).toBe(true);
    expect(delegatedAllow(agent, user, 'memory', 'write', 'u2/notes')).toBe(false);
    expect(delegatedAllow([], user, 'memory', 'write', 'u1/notes')).toBe(false);
  });
});
