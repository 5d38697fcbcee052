import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { A2aBridge, a2aSignableCard, cardProtectedHeader, createA2aHttpHandler, verifyCard } from '@agdx/bridge-a2a';
import { signedCard, SigningKey, type CardSignature } from '@agdx/sign';
import { memoryClient } from '@agdx/bridge-testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
// The SDK verifier reports each refused signature on console.debug; the assertions say it.
beforeEach(() => void vi.spyOn(console, 'debug').mockImplementation(() => undefined));
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function headerOf(signature: CardSignature): unknown {
  return JSON.parse(Buffer.from(signature.protected, 'base64url').toString('utf8'));
}

/** The official SDK's verifier, handed our public key (as a JWK) for the kid the card names. */
function sdkVerifier(keys: ReadonlyMap<string, SigningKey>) {
  return verifyAgentCardSignature(async (kid) => {
    const key = keys.get(kid);
    if (key === undefined) throw new Error(`unknown kid ${kid}`);
    return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.verifyingKey).toString('base64url') };
  });
}

async function bridgeWithSkills() {
  const { laser } = await memoryClient(1);
  return new A2aBridge(laser, 'a2a-gateway', 'agent.commands', 'agent.responses').withCapabilities([
    { skillId: 'summarize', version: 1, input: { kind: 'contentType', contentType: 1 } } as never,
  ]);
}

describe('signed Agent Cards that A2A verifiers accept', () => {
  it("names the key (kid = registry key) and typ JOSE, and the official @a2a-js/sdk verifier accepts it with our public key", async () => {
    const bridge = await bridgeWithSkills();
    const key = SigningKey.generate();
    const signed = await bridge.signedCard(key);
    expect(headerOf(signed.signatures[0]!)).toEqual({ alg: 'EdDSA', kid: key.registryKey, typ: 'JOSE' });
    await sdkVerifier(new Map([[key.registryKey, key]]))(signed as never);
    // Our verifier accepts the same signature.
    await verifyCard(signed, signed.signatures[0]!, key.verifyingKey);
  });

  it('is refused by the SDK verifier when the card was changed, or the kid names another key', async () => {
    const bridge = await bridgeWithSkills();
    const key = SigningKey.generate();
    const other = SigningKey.generate();
    const signed = await bridge.signedCard(key);
    const keys = new Map([[key.registryKey, key]]);
    await expect(sdkVerifier(keys)({ ...signed, name: 'impostor' } as never)).rejects.toThrow('No valid signatures');
    await expect(sdkVerifier(new Map([[key.registryKey, other]]))(signed as never)).rejects.toThrow('No valid signatures');
    // Ours refuses a kid that is not the key it is given.
    await expect(verifyCard(signed, signed.signatures[0]!, other.verifyingKey)).rejects.toThrow('card signature names another key');
  });

  it("is signed in the SDK's canonical form: empty members and A2A 0.3's stateTransitionHistory are left out, false flags kept", async () => {
    const bridge = await bridgeWithSkills();
    const card = bridge.card();
    expect(card.skills[0]).toMatchObject({ description: '', tags: [] });
    const reduced = a2aSignableCard(card);
    expect(reduced.skills[0]).toEqual({ id: 'summarize', name: 'summarize', inputModes: ['application/json'] });
    expect(reduced.capabilities).toEqual({ streaming: true, pushNotifications: false, extendedAgentCard: false });
    const signed = await bridge.signedCard(SigningKey.generate());
    expect({ ...signed, signatures: undefined }).toEqual({ ...reduced, signatures: undefined });
  });

  it("the seed's form (no kid, no typ) still verifies with verifyCard, and is the form the SDK verifier refuses", async () => {
    const bridge = await bridgeWithSkills();
    const key = SigningKey.generate();
    const seedForm = await signedCard(bridge.card(), key);
    expect(headerOf(seedForm.signatures[0]!)).toEqual({ alg: 'EdDSA' });
    await verifyCard(seedForm, seedForm.signatures[0]!, key.verifyingKey);
    await expect(sdkVerifier(new Map([[key.registryKey, key]]))(seedForm as never)).rejects.toThrow('No valid signatures');
    expect(cardProtectedHeader(key)).not.toBe(seedForm.signatures[0]!.protected);
  });

  it('is served by the HTTP handler as signed, and the SDK verifier accepts what it fetched', async () => {
    const bridge = await bridgeWithSkills();
    const key = SigningKey.generate();
    const signed = await bridge.signedCard(key, { ...bridge.card(), supportedInterfaces: [{ url: 'https://agents.example/a2a/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    const server = await serve(createA2aHttpHandler(bridge, { card: signed }));
    cleanups.push(() => server.close());
    const fetched = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as typeof signed;
    await sdkVerifier(new Map([[key.registryKey, key]]))(fetched as never);
    await verifyCard(fetched, fetched.signatures[0]!, key.verifyingKey);
  });
});
