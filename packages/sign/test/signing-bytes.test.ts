// Signing and verification over encoded envelope bytes: every case of signing.json `signatures`
// and `verify` that does not need the decoded envelope model, on both back ends.
import { describe, expect, it } from 'vitest';
import { encodeContextBytes, signingInputFromEncoded, SigningKey, splitSignedEnvelope } from '@agdx/sign';
import type { Signature } from '@agdx/wire';
import { BACKENDS, expectOracleError, hex, oracle, thrown, toHex } from './support/fixtures.js';
import type { OracleError, OracleRecord } from './support/fixtures.js';
import { observedFrom, observedHeaderMap, registryFrom } from './support/registry.js';

interface OracleSignature {
  scheme: number;
  key_id_hex: string;
  bytes_hex: string;
  context?: { content_type?: number; agent_version?: number };
}
interface SignatureCase {
  id: string;
  seed_hex: string;
  unsigned_cbor_hex: string;
  context: { content_type?: number; agent_version?: number } | null;
  context_cbor_hex: string;
  signing_input_hex: string;
  signature: OracleSignature;
  signed_cbor_hex: string;
}
interface VerifyCase {
  id: string;
  name: string;
  registry: OracleRecord[];
  envelope_cbor_hex: string;
  envelope: { metadata?: [string, { type: string; value?: unknown }][] };
  method: 'verify' | 'verifyAt' | 'verifyObservedAt' | 'verifyDelegation';
  at_micros?: string;
  observed_headers?: { content_type?: number; agent_version?: number };
  outcome: { ok: true; result: unknown } | { ok: false; error: OracleError };
}

const signing = oracle('signing.json');
const signatures = signing.sections['signatures'] as SignatureCase[];
const verifyCases = signing.sections['verify'] as VerifyCase[];

export function contextFrom(ctx: { content_type?: number; agent_version?: number } | null | undefined) {
  return ctx === null || ctx === undefined ? undefined : observedFrom(ctx);
}

// The oracle's `signature` JSON carries scheme, key id and bytes; the bound context is checked
// through `context_cbor_hex`.
function logicalSignature(sig: Signature): OracleSignature {
  return { scheme: sig.scheme, key_id_hex: toHex(sig.keyId), bytes_hex: toHex(sig.bytes) };
}

function contextHex(sig: Signature): string {
  return sig.context === undefined ? '' : toHex(encodeContextBytes(sig.context));
}

describe.each(BACKENDS)('signing.json signatures over encoded bytes (%s)', (backend) => {
  it.each(signatures.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const context = contextFrom(c.context);
    // The unsigned form may carry an older signature: the signing input never covers it.
    const unsigned = splitSignedEnvelope(hex(c.unsigned_cbor_hex)).unsigned;
    expect(toHex(signingInputFromEncoded(unsigned, context))).toBe(c.signing_input_hex);
    const key = SigningKey.fromBytes(hex(c.seed_hex), { backend });
    const signature = await key.signEncoded(unsigned, context);
    expect(logicalSignature(signature)).toEqual(c.signature);
    expect(contextHex(signature)).toBe(c.context_cbor_hex);
    const signed = splitSignedEnvelope(hex(c.signed_cbor_hex));
    expect(toHex(signed.unsigned)).toBe(toHex(unsigned));
    expect(logicalSignature(signed.signature!)).toEqual(c.signature);
    expect(contextHex(signed.signature!)).toBe(c.context_cbor_hex);
  });
});

// verifyDelegation needs the decoded metadata: those cases run in signing-envelopes.test.ts.
const byteLevel = verifyCases.filter((c) => c.method !== 'verifyDelegation');

describe.each(BACKENDS)('signing.json verify over encoded bytes (%s)', (backend) => {
  it('covers every method but verifyDelegation here', () => {
    expect(new Set(byteLevel.map((c) => c.method))).toEqual(new Set(['verify', 'verifyAt', 'verifyObservedAt']));
  });
  it.each(byteLevel.map((c) => [c.id, c.name, c] as const))('%s %s', async (_id, _name, c) => {
    const registry = registryFrom(c.registry, backend);
    const bytes = hex(c.envelope_cbor_hex);
    const at = c.at_micros === undefined ? undefined : BigInt(c.at_micros);
    const observed = c.observed_headers;
    const calls: (() => Promise<unknown> | unknown)[] =
      c.method === 'verifyObservedAt'
        ? [
            () => registry.verifyEncoded(bytes, at!, observedFrom(observed!)),
            () => registry.verifyEncoded(bytes, at!, observedHeaderMap(observed!)),
            () => registry.verifyEncodedSync(bytes, at!, observedFrom(observed!)),
          ]
        : [() => registry.verifyEncoded(bytes, at), () => registry.verifyEncodedSync(bytes, at)];
    for (const call of calls) {
      if (c.outcome.ok) {
        const result = await call();
        const expected = c.outcome.result;
        if (c.method === 'verify') expect((result as { principal: string }).principal).toBe(expected);
        else expect(result).toEqual(expected);
      } else {
        expectOracleError(await thrown(call), c.outcome.error);
      }
    }
  });
});
