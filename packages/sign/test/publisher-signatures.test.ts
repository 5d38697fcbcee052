// publisher.json: the signed send verbs of 0.1.1. Each signed record re-signs to the same bytes
// (context {ct: the record's agdx.ct, av: 1}) and verifies against the headers it was sent with.
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope } from '@agdx/wire';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { BACKENDS, hex, oracle, toHex } from './support/fixtures.js';

interface PublishedMessage {
  payload_hex: string;
  headers: { name: string; kind: string; value?: number | string }[];
  envelope: { signature?: unknown };
}
interface PublisherCase {
  id: string;
  signer?: { seed_hex: string; verifying_key_hex: string; key_id_hex: string };
  published?: { messages: PublishedMessage[] }[] | null;
}

const publisher = oracle<{ cases: PublisherCase[] }>('publisher.json');
const signedMessages = publisher.cases.flatMap((c) =>
  c.signer === undefined
    ? []
    : (c.published ?? []).flatMap((batch) =>
        batch.messages.filter((m) => m.envelope.signature !== undefined).map((m, i) => [`${c.id}#${i}`, c.signer!, m] as const),
      ),
);

function header(m: PublishedMessage, name: string): number | undefined {
  const value = m.headers.find((h) => h.name === name)?.value;
  return typeof value === 'number' ? value : undefined;
}

describe.each(BACKENDS)('publisher.json signed records (%s)', (backend) => {
  it('has signed records', () => expect(signedMessages.length).toBeGreaterThan(0));
  it.each(signedMessages)('%s', async (_id, signer, m) => {
    const key = SigningKey.fromBytes(hex(signer.seed_hex), { backend });
    expect(toHex(key.keyId)).toBe(signer.key_id_hex);
    const sent = decodeEnvelope(hex(m.payload_hex));
    const context = { contentType: header(m, 'agdx.ct')!, agentVersion: 1 };
    expect(sent.signature?.context).toEqual(context);
    const resigned = await key.sign(sent.withSignature(undefined), context);
    expect(toHex(encodeEnvelope(resigned))).toBe(m.payload_hex);
    const registry = new KeyRegistry({ backend });
    registry.enroll('publisher', key);
    expect(await registry.verifyObservedAt(sent, 0n, { contentType: header(m, 'agdx.ct'), agentVersion: header(m, 'agdx.av') })).toEqual({
      principal: 'publisher',
      kind: 'agent',
    });
  });
});
