/**
 * Operator facts with a verifier set: a session pause on `agent.control` counts only with a
 * valid signature by an operator key. Unsigned, agent-key, unknown-key, revoked-key and tampered
 * pauses are ignored. One partition keeps the order, so once the genuine pause has landed every
 * earlier hostile one has been judged. (Registry quarantine / unquarantine facts have no fold in
 * @agdx/agents yet; see docs/reliability.md.)
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';

const ctx = { contentType: ContentType.raw, agentVersion: 1 };

function pause(session: ConversationId): AgentEnvelope {
  return AgentEnvelope.fromFields({
    kind: 'command',
    record: MintUlid.mint(RecordId),
    conversation: session,
    source: AgentId.new('operator'),
    target: AgentId.new('guarded'),
    correlation: MintUlid.mint(CorrelationId),
    operation: 'session_pause',
    body: new TextEncoder().encode('{}'),
  });
}

async function eventually(check: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function setup() {
  const operator = SigningKey.fromBytes(new Uint8Array(32).fill(31));
  const retired = SigningKey.fromBytes(new Uint8Array(32).fill(32));
  const agentKey = SigningKey.fromBytes(new Uint8Array(32).fill(33));
  const stranger = SigningKey.fromBytes(new Uint8Array(32).fill(34));
  const registry = new KeyRegistry();
  registry.enroll('operator', operator, KeyKind.Operator);
  registry.enroll('retired-operator', retired, KeyKind.Operator);
  registry.enroll('operator', agentKey, KeyKind.Agent);
  registry.revoke(retired.keyId);
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'ops' });
  await laser.bootstrap(1);
  const agent = Agent.builder().id('guarded').listenOn(AgentTopic.Commands).verifier(registry).heartbeats(false).handler(() => undefined).spawn(laser);
  await agent.ready();
  const publish = (e: AgentEnvelope): Promise<unknown> => laser.publish(AgentTopic.Control, e, ContentType.raw);
  const paused = (session: ConversationId): boolean => agent.pendingControl(session.toString()).pauseRequested;
  return { operator, retired, agentKey, stranger, laser, agent, publish, paused };
}

describe('operator facts need an operator signature when a verifier is set', () => {
  it('ignores unsigned, unknown-key, revoked-key and tampered pauses; obeys the genuine one', async () => {
    const { operator, retired, stranger, laser, agent, publish, paused } = await setup();
    const sessions = {
      unsigned: ConversationId.new(),
      unknownKey: ConversationId.new(),
      revokedKey: ConversationId.new(),
      tampered: ConversationId.new(),
      genuine: ConversationId.new(),
    };
    await publish(pause(sessions.unsigned));
    await publish(await stranger.sign(pause(sessions.unknownKey), ctx));
    await publish(await retired.sign(pause(sessions.revokedKey), ctx));
    // Signed for the genuine session, then re-pointed at another one.
    await publish((await operator.sign(pause(sessions.genuine), ctx)).with({ conversation: sessions.tampered }));
    await publish(await operator.sign(pause(sessions.genuine), ctx));

    await eventually(() => paused(sessions.genuine), 5_000);
    for (const [name, session] of Object.entries(sessions)) {
      if (name !== 'genuine') expect(paused(session), name).toBe(false);
    }
    await agent.shutdown();
    await laser.close();
  });

  // With a verifier, a control record counts only when an operator key signed it: any enrolled
  // agent key verifies, but an agent must not be able to pause its peers.
  it('ignores a pause signed by an enrolled agent key (not an operator key)', async () => {
    const { operator, agentKey, laser, agent, publish, paused } = await setup();
    const byAgent = ConversationId.new();
    const genuine = ConversationId.new();
    await publish(await agentKey.sign(pause(byAgent), ctx));
    await publish(await operator.sign(pause(genuine), ctx));
    await eventually(() => paused(genuine), 5_000);
    try {
      expect(paused(byAgent)).toBe(false);
    } finally {
      await agent.shutdown();
      await laser.close();
    }
  });
});
