// Signing inputs are built in one buffer the package reuses. Every signature must still cover its
// own envelope: many signs and verifies in flight at once (also on a key or registry whose
// WebCrypto key is still being imported, where the call is deferred and must keep a copy), inputs
// larger than the kept buffer, and a failed encode in between. Held to @noble/curves over the
// public signingInput.
import { ed25519 } from '@noble/curves/ed25519.js';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, RecordId } from '@agdx/wire';
import { KeyRegistry, SigningKey, signingInput } from '@agdx/sign';
import { describe, expect, it } from 'vitest';
import { BACKENDS, toHex } from './support/fixtures.js';

const CONTEXT = { contentType: 1, agentVersion: 1 } as const;
const AT = 1_750_000_000_000_000n;

function envelope(i: number, bodyBytes = 40 + (i % 50)): AgentEnvelope {
  return AgentEnvelope.command(
    RecordId.fromBigInt(BigInt(i + 1)),
    ConversationId.fromBigInt(BigInt(i + 1000)),
    AgentId.new(`agent-${i}`),
    CorrelationId.fromBigInt(BigInt(i + 7)),
    Uint8Array.from({ length: bodyBytes }, (_, j) => (i * 31 + j) & 0xff),
  );
}

function seed(n: number): Uint8Array {
  return Uint8Array.from({ length: 32 }, (_, i) => (n * 13 + i * 7) & 0xff);
}

describe.each(BACKENDS)('shared signing-input buffer (%s back end)', (backend) => {
  it('64 signs in flight on a fresh key each cover their own envelope', async () => {
    const s = seed(1);
    const key = SigningKey.fromBytes(s, { backend });
    const envelopes = Array.from({ length: 64 }, (_, i) => envelope(i));
    const signed = await Promise.all(envelopes.map((e) => key.sign(e, CONTEXT)));
    signed.forEach((e, i) => {
      const expected = ed25519.sign(signingInput(envelopes[i] as AgentEnvelope, CONTEXT), s);
      expect(toHex(e.signature?.bytes ?? new Uint8Array(0)), `entry ${i}`).toBe(toHex(expected));
    });
  });

  it('64 verifies in flight on a fresh registry give each envelope its own verdict', async () => {
    const key = SigningKey.fromBytes(seed(2), { backend });
    const signed = await Promise.all(Array.from({ length: 64 }, (_, i) => key.sign(envelope(i), CONTEXT)));
    // Every other envelope is tampered with after signing: its body no longer matches.
    const mixed = signed.map((e, i) => (i % 2 === 0 ? e : e.withBody(Uint8Array.of(9, 9, 9))));
    const registry = new KeyRegistry({ backend });
    registry.enroll('p', key.verifyingKey);
    const verdicts = await Promise.all(mixed.map((e) => registry.verifyAt(e, AT).then(() => true, () => false)));
    expect(verdicts).toEqual(mixed.map((_, i) => i % 2 === 0));
  });

  it('signs and verifies inputs far larger than the kept buffer, and small ones after them', async () => {
    const s = seed(3);
    const key = SigningKey.fromBytes(s, { backend });
    const registry = new KeyRegistry({ backend });
    registry.enroll('p', key.verifyingKey);
    for (const size of [10, 5_000, 70_000, 300_000, 12]) {
      const e = envelope(size, size);
      const signed = await key.sign(e, CONTEXT);
      expect(toHex(signed.signature?.bytes ?? new Uint8Array(0)), `size ${size}`).toBe(toHex(ed25519.sign(signingInput(e, CONTEXT), s)));
      await expect(registry.verifyAt(signed, AT)).resolves.toBeDefined();
      expect(registry.verifyAtSync(signed, AT)).toBeDefined();
    }
  });

  it('a context outside its range fails with a typed error and the next signature is still right', async () => {
    const s = seed(4);
    const key = SigningKey.fromBytes(s, { backend });
    await expect(key.sign(envelope(1), { contentType: 300 })).rejects.toMatchObject({ kind: 'invalid' });
    const e = envelope(2);
    const signed = await key.sign(e);
    expect(toHex(signed.signature?.bytes ?? new Uint8Array(0))).toBe(toHex(ed25519.sign(signingInput(e), s)));
  });
});
