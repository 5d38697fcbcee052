// Hostile bytes: every decoder answers with a typed AGDX error or a value, never an untyped
// throw, and a mutated signed envelope never verifies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgdxError, AgentEnvelope, AgentId, ConversationId, CorrelationId, RecordId } from '@agdx/wire';
import {
  decodeSignatureCapsule,
  decodeStoredKeyRecord,
  KeyRegistry,
  MAX_KEY_RECORD_BYTES,
  MAX_SIGNATURE_BYTES,
  SigningKey,
  splitSignedEnvelope,
  verifyCardSync,
} from '@agdx/sign';
import { toHex } from './support/fixtures.js';

function typedOrValue(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (error) {
    return AgdxError.is(error);
  }
}

describe('hostile input', () => {
  it('decoders throw only typed errors on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(typedOrValue(() => decodeStoredKeyRecord(bytes))).toBe(true);
        expect(typedOrValue(() => decodeSignatureCapsule(bytes))).toBe(true);
        expect(typedOrValue(() => splitSignedEnvelope(bytes))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('card verification throws only typed errors on random signatures and keys', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ maxLength: 100 }), fc.uint8Array({ maxLength: 40 }), (p, s, k) => {
        expect(typedOrValue(() => verifyCardSync({ name: 'x' }, { protected: p, signature: s }, k))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a signed envelope with any single byte changed never verifies', () => {
    const key = SigningKey.fromHex('24'.repeat(32), { backend: 'noble' });
    const registry = new KeyRegistry({ backend: 'noble' });
    registry.enroll('planner', key);
    const signed = key
      .signSync(
        AgentEnvelope.command(
          RecordId.fromBigInt(9n),
          ConversationId.fromBigInt(8n),
          AgentId.new('planner'),
          CorrelationId.fromBigInt(7n),
          new TextEncoder().encode('body'),
        ),
        { contentType: 1, agentVersion: 1 },
      )
      .encode();
    expect(registry.verifyEncodedSync(signed).principal).toBe('planner');
    fc.assert(
      fc.property(fc.nat(signed.length - 1), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const mutated = signed.slice();
        mutated[at] = mutated[at]! ^ xor;
        let verified = false;
        try {
          registry.verifyEncodedSync(mutated);
          verified = true;
        } catch (error) {
          expect(AgdxError.is(error), `untyped error for ${toHex(mutated)}`).toBe(true);
        }
        expect(verified).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses oversized key records and signatures by size, before decoding (a 16 MiB array took seconds)', () => {
    const zeros = (n: number): Uint8Array => {
      const out = new Uint8Array(n + 5);
      out.set([0x9a, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
      return out;
    };
    const big = zeros(16 * 1024 * 1024 - 8);
    const started = performance.now();
    for (const decode of [decodeStoredKeyRecord, decodeSignatureCapsule]) {
      let error: unknown;
      try {
        decode(big);
      } catch (e) {
        error = e;
      }
      expect(AgdxError.is(error, 'codec')).toBe(true);
      expect((error as Error).message).toMatch(/exceeds cap 4096B/);
    }
    // Generous: the point is not stalling, not speed.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(() => decodeStoredKeyRecord(zeros(MAX_KEY_RECORD_BYTES))).toThrow(/exceeds cap/);
    expect(() => decodeSignatureCapsule(zeros(MAX_SIGNATURE_BYTES - 5))).toThrow(/not a CBOR map|must be|signature/);
  });
});
