/**
 * A processed key makes a verifying agent commit a command without handling it. With `signing`,
 * the log-backed store signs the keys it records and counts only those the agent's own key
 * signed: an attacker who can append to `agent.processed_keys` (plain records, an insider's
 * signed key, a record that claims to be the agent's) cannot swallow a signed command whose
 * idempotency key it guessed, while the agent's own keys still survive a restart.
 */
import { Agent, AgentTopic, LogProcessedKeyStore, PROCESSED_KEY_NAMESPACE_HEADER, PROCESSED_KEY_OPERATION, PROCESSED_KEYS_TOPIC, processedKey, type AgdxClient } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { AGENT_OP_VERSION, AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, envelopeRecord, InvalidError, MintUlid, RecordId, stringHeader } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { decode, eventually, harness, STREAM, text } from './support-runtime/harness.js';

const payerKey = SigningKey.fromBytes(new Uint8Array(32).fill(101));
const shopKey = SigningKey.fromBytes(new Uint8Array(32).fill(102));
const insiderKey = SigningKey.fromBytes(new Uint8Array(32).fill(103));
const payer = AgentId.new('payer');

function registry(): KeyRegistry {
  const r = new KeyRegistry();
  r.enroll('payer', payerKey, KeyKind.Agent);
  r.enroll('shop', shopKey, KeyKind.Agent);
  r.enroll('insider', insiderKey, KeyKind.Agent);
  return r;
}

const namespaceHeader: [string, ReturnType<typeof stringHeader>] = [PROCESSED_KEY_NAMESPACE_HEADER, stringHeader('payer')];

async function forgeKeys(laser: AgdxClient, key: string): Promise<void> {
  const append = (headers: Map<string, ReturnType<typeof stringHeader>>, payload: Uint8Array) =>
    laser.transport.append({ stream: STREAM, topic: PROCESSED_KEYS_TOPIC, routing: { partition: 0 }, records: [{ headers, payload }] });
  // The unsigned store's own format.
  await append(new Map([namespaceHeader]), text.encode(key));
  // Signed, but by an insider speaking as itself, and by an insider posing as the payer.
  for (const source of [AgentId.new('insider'), payer]) {
    const event = AgentEnvelope.event(MintUlid.mint(RecordId), ConversationId.new(), source, text.encode(key)).withOperation(PROCESSED_KEY_OPERATION);
    const signed = await insiderKey.sign(event, { contentType: ContentType.raw, agentVersion: AGENT_OP_VERSION });
    const record = envelopeRecord(signed, ContentType.raw);
    await append(new Map([...record.headers, namespaceHeader]), record.payload);
  }
  // Claiming to be the payer's, unsigned.
  const unsigned = envelopeRecord(AgentEnvelope.event(MintUlid.mint(RecordId), ConversationId.new(), payer, text.encode(key)).withOperation(PROCESSED_KEY_OPERATION), ContentType.raw);
  await append(new Map([...unsigned.headers, namespaceHeader]), unsigned.payload);
}

function openStore(laser: AgdxClient): Promise<LogProcessedKeyStore> {
  return LogProcessedKeyStore.open(laser.transport, { stream: STREAM, namespace: 'payer', signing: { agent: 'payer', signer: payerKey, verifier: registry() } });
}

async function pay(laser: AgdxClient, key: string, amount: string): Promise<void> {
  await laser.agdx(AgentTopic.Commands, AgentId.new('shop'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode(amount)).withOperation('pay').withIdempotencyKey(key).signedBy(shopKey).send();
}

describe('a signed log-backed processed-key store', () => {
  it('ignores forged keys, on open and on refresh; the agent handles the command and its own key survives a restart', async () => {
    const { laser } = await harness();
    // The runtime stores `<agent>\u001f<idempotency key>`: the attacker forges exactly that.
    const guessed = processedKey('payer', 'order-9');
    await LogProcessedKeyStore.open(laser.transport, { stream: STREAM, namespace: 'payer' });
    await forgeKeys(laser, guessed);
    // An unsigned store believes the forgery (why `signing` exists).
    expect((await LogProcessedKeyStore.open(laser.transport, { stream: STREAM, namespace: 'payer' })).has(guessed)).toBe(true);
    const store = await openStore(laser);
    expect([store.has(guessed), store.size]).toEqual([false, 0]);
    await forgeKeys(laser, processedKey('payer', 'order-10'));
    await store.refresh();
    expect([store.has(processedKey('payer', 'order-10')), store.size]).toEqual([false, 0]);

    const paid: string[] = [];
    {
      await using agent = Agent.builder()
        .id(payer)
        .listenOn(AgentTopic.Commands)
        .verifier(registry())
        .signingKey(payerKey)
        .processedKeys(store)
        .heartbeats(false)
        .handler((message) => void paid.push(decode(message.envelope?.body ?? new Uint8Array())))
        .spawn(laser);
      await agent.ready();
      await pay(laser, 'order-9', '9 EUR');
      await eventually(() => agent.stats.handled + agent.stats.duplicate >= 1, 5_000, 'the payment');
      expect(paid).toEqual(['9 EUR']);
    }
    const reopened = await openStore(laser);
    expect([reopened.has(guessed), reopened.size]).toEqual([true, 1]);
  });

  it('refuses a malformed signing option before touching the log', async () => {
    const { laser } = await harness();
    const open = (signing: unknown) => LogProcessedKeyStore.open(laser.transport, { stream: STREAM, namespace: 'payer', signing: signing as never });
    await expect(open(null)).rejects.toBeInstanceOf(InvalidError);
    await expect(open({ agent: 'payer', signer: {}, verifier: registry() })).rejects.toBeInstanceOf(InvalidError);
    await expect(open({ agent: 'payer', signer: payerKey, verifier: {} })).rejects.toBeInstanceOf(InvalidError);
    await expect(open({ agent: '', signer: payerKey, verifier: registry() })).rejects.toBeInstanceOf(InvalidError);
    await expect(laser.transport.describeTopic({ stream: STREAM, topic: PROCESSED_KEYS_TOPIC })).rejects.toMatchObject({ kind: 'not-found' });
  });
});
