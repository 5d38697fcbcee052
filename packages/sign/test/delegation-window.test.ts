// A delegation is an agent acting for a user; a key rotated out (its window ended) or not yet
// valid must not delegate when the caller says when the delegation was made. Before, the key's
// window was never consulted: an old key kept delegating for as long as it stayed enrolled.
import { describe, expect, it } from 'vitest';
import { KeyRecord, KeyRegistry, SignatureError, SigningKey, verifyDelegation, verifyDelegationSync } from '@agdx/sign';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, RecordId } from '@agdx/wire';

const key = SigningKey.fromBytes(new Uint8Array(32).fill(91));

async function delegated(): Promise<AgentEnvelope> {
  const envelope = AgentEnvelope.command(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('planner'), CorrelationId.fromBigInt(3n), new TextEncoder().encode('pay'))
    .withMetadata(new Map([['on_behalf_of', 'user:1']]));
  return key.sign(envelope, { contentType: ContentType.json, agentVersion: 1 });
}

function rotatedRegistry(): KeyRegistry {
  const registry = new KeyRegistry();
  // The key was valid in [100, 200): it was rotated out at 200.
  registry.enrollRecord(KeyRecord.agent('planner', key.verifyingKey).validWindow(100n, 200n));
  return registry;
}

describe('verifyDelegation with a time', () => {
  it('refuses a key outside its window at the given time, async and sync', async () => {
    const signed = await delegated();
    const registry = rotatedRegistry();
    await expect(verifyDelegation(registry, signed, { atMicros: 250n })).rejects.toThrow('signing key has expired');
    await expect(verifyDelegation(registry, signed, { atMicros: 50n })).rejects.toThrow('signing key is not yet valid');
    expect(() => verifyDelegationSync(registry, signed, { atMicros: 250n })).toThrow('signing key has expired');
    expect(await verifyDelegation(registry, signed, { atMicros: 150n })).toEqual({ signer: 'planner', user: 'user:1' });
    expect(verifyDelegationSync(registry, signed, { atMicros: 150n })).toEqual({ signer: 'planner', user: 'user:1' });
  });

  it('checks the bound context against the observed headers', async () => {
    const signed = await delegated();
    const registry = rotatedRegistry();
    expect(await verifyDelegation(registry, signed, { atMicros: 150n, observedHeaders: { contentType: ContentType.json, agentVersion: 1 } })).toEqual({ signer: 'planner', user: 'user:1' });
    await expect(verifyDelegation(registry, signed, { atMicros: 150n, observedHeaders: { contentType: ContentType.cbor, agentVersion: 1 } })).rejects.toThrow('signature context differs from record headers');
  });

  it('refuses an `at` that is not an object with a typed error', async () => {
    const signed = await delegated();
    const registry = rotatedRegistry();
    await expect(verifyDelegation(registry, signed, null as never)).rejects.toThrow(SignatureError);
    expect(() => verifyDelegationSync(registry, signed, 5 as never)).toThrow(SignatureError);
    await expect(verifyDelegation(registry, signed, { atMicros: -1n })).rejects.toMatchObject({ kind: 'invalid' });
  });
});
