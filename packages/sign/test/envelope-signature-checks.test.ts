// envelopes.json `signature_check`: enrol the file's signers, then verify each signed envelope
// and check it against the record headers the reference wrote (Iggy header map form).
import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '@agdx/wire';
import type { HeaderKind, HeaderValue } from '@agdx/wire';
import { KeyRegistry } from '@agdx/sign';
import { BACKENDS, hex, oracle } from './support/fixtures.js';

interface Signer {
  name: string;
  seed_hex: string;
  verifying_key_hex: string;
  key_id_hex: string;
}
interface EnvelopeCase {
  id: string;
  cbor_hex: string;
  headers: { name: string; iggy_kind: string; bytes_hex: string }[];
  signature_check?: { signer: string; verifying_key_hex: string; verify: string; verify_observed_at_headers: string };
}

const envelopes = oracle<{ signers: Signer[]; cases: EnvelopeCase[] }>('envelopes.json');
const checked = envelopes.cases.filter((c) => c.signature_check !== undefined);

async function outcome(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}

describe.each(BACKENDS)('envelopes.json signature_check (%s)', (backend) => {
  const registry = new KeyRegistry({ backend });
  for (const s of envelopes.signers) registry.enroll(s.name, hex(s.verifying_key_hex));

  it('has signed cases', () => expect(checked.length).toBeGreaterThan(0));
  it.each(checked.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const check = c.signature_check!;
    const signer = envelopes.signers.find((s) => s.name === check.signer);
    expect(signer?.verifying_key_hex).toBe(check.verifying_key_hex);
    const envelope = decodeEnvelope(hex(c.cbor_hex));
    expect(await outcome(async () => expect(await registry.verify(envelope)).toBe(check.signer))).toBe(check.verify);
    const headers = new Map<string, HeaderValue>(
      c.headers.map((h) => [h.name, { kind: h.iggy_kind as HeaderKind, value: hex(h.bytes_hex) }]),
    );
    const at = 1_750_000_000_000_000n;
    expect(await outcome(() => registry.verifyObservedAt(envelope, at, headers))).toBe(check.verify_observed_at_headers);
    expect(await outcome(async () => registry.verifyObservedAtSync(envelope, at, headers))).toBe(check.verify_observed_at_headers);
  });
});
