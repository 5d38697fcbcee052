import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope } from '@agdx/wire';
import {
  decodeSignatureCapsule,
  encodeSignatureCapsule,
  KeyRegistry,
  SignatureError,
  signingInput,
  SigningKey,
  splitSignedEnvelope,
} from '@agdx/sign';
import { BACKENDS, thrown, toHex, upstream } from './support/fixtures.js';

describe('upstream agent_signature.bin', () => {
  const bytes = upstream('agent_signature.bin');
  it('decodes to the capsule DIAGNOSTIC.txt shows and re-encodes byte for byte', () => {
    const sig = decodeSignatureCapsule(bytes);
    expect(sig.scheme).toBe(1);
    expect(toHex(sig.keyId)).toBe('ab'.repeat(8));
    expect(toHex(sig.bytes)).toBe('cd'.repeat(64));
    expect(sig.context).toBeUndefined();
    expect(toHex(encodeSignatureCapsule(sig))).toBe(toHex(bytes));
  });
  it('refuses hostile capsule bytes with typed errors', async () => {
    for (const cut of [0, 1, 10, bytes.length - 1]) {
      const error = await thrown(() => decodeSignatureCapsule(bytes.subarray(0, cut)));
      expect((error as { kind?: string }).kind).toBe('codec');
    }
  });
});

describe('upstream agent_command_signed.bin', () => {
  const bytes = upstream('agent_command_signed.bin');
  const unsignedFixture = upstream('agent_command.bin');

  it('carries the placeholder signature over exactly agent_command.bin', () => {
    const split = splitSignedEnvelope(bytes);
    expect(toHex(split.unsigned)).toBe(toHex(unsignedFixture));
    expect(split.signature?.scheme).toBe(1);
    expect(toHex(split.signature!.keyId)).toBe('0102030405060708');
    expect(toHex(split.signature!.bytes)).toBe(toHex(Uint8Array.from({ length: 64 }, (_, i) => i)));
    const envelope = decodeEnvelope(bytes);
    expect(toHex(encodeEnvelope(envelope))).toBe(toHex(bytes));
    expect(toHex(signingInput(envelope)).endsWith(toHex(unsignedFixture))).toBe(true);
  });

  describe.each(BACKENDS)('%s back end', (backend) => {
    it('does not verify: its key id belongs to no enrolled key', async () => {
      const registry = new KeyRegistry({ backend });
      registry.enroll('someone', SigningKey.fromHex('00'.repeat(32)));
      const envelope = decodeEnvelope(bytes);
      for (const call of [() => registry.verify(envelope), () => registry.verifyEncoded(bytes), () => registry.verifySync(envelope)]) {
        const error = await thrown(call);
        expect(error).toBeInstanceOf(SignatureError);
        expect((error as Error).message).toBe('signing key is not enrolled');
      }
    });

    it('re-signed with the spec test vector (seed 00..1f, context ct=1 av=1) gives the documented signature', async () => {
      const key = SigningKey.fromBytes(Uint8Array.from({ length: 32 }, (_, i) => i), { backend });
      expect(toHex(key.verifyingKey)).toBe('03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8');
      expect(toHex(key.keyId)).toBe('56475aa75463474c');
      const envelope = decodeEnvelope(unsignedFixture);
      const context = { contentType: 1, agentVersion: 1 };
      expect(signingInput(envelope, context)).toHaveLength(313);
      const signed = await key.sign(envelope, context);
      expect(toHex(signed.signature!.bytes)).toBe(
        'bb525fff8abae329f7ddfc051b92b11f4cdfc3b98c6eb45e32532a34507954a6c698bda59b35f2e996cc2449a16cb527c7b92ed7fd85d815534380e8482bf006',
      );
      const tail = toHex(encodeEnvelope(signed)).slice(toHex(unsignedFixture).length);
      expect(tail.startsWith('697369676e6174757265a466736368656d6501666b65795f69644856475aa75463474c65627974657358')).toBe(true);
      const registry = new KeyRegistry({ backend });
      registry.enroll('planner', key);
      expect(await registry.verifyObservedAt(signed, 0n, { contentType: 1, agentVersion: 1 })).toEqual({ principal: 'planner', kind: 'agent' });
      expect(await registry.verifyEncoded(encodeEnvelope(signed))).toEqual({ principal: 'planner', kind: 'agent' });
    });
  });
});
