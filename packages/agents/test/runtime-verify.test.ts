import { Agent, AgentTopic } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { AgentId, ConversationId, CorrelationId, DeadLetterReason, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { deadLetters, eventually, harness } from './support-runtime/harness.js';
import { forgedReplyNeverResolvesVerifiedWait } from './support-runtime/scenarios.js';

const text = new TextEncoder();

describe('signatures end to end', () => {
  it('a forged reply never resolves a verified wait; the signed answer of the agent does', () => forgedReplyNeverResolvesVerifiedWait(memoryEnv));

  it('an agent with a verifier handles signed work and dead-letters unsigned work as Rejected', async () => {
    const { log, laser } = await harness();
    const plannerKey = SigningKey.fromBytes(new Uint8Array(32).fill(5));
    const registry = new KeyRegistry();
    registry.enroll('planner', plannerKey, KeyKind.Agent);
    const principals: (string | undefined)[] = [];
    await using agent = Agent.builder()
      .id('checker')
      .listenOn(AgentTopic.Commands)
      .verifier(registry)
      .handler((message) => void principals.push(message.verifiedPrincipal?.principal))
      .spawn(laser);
    await agent.ready();
    const send = (signed: boolean) => {
      const builder = laser.agdx(AgentTopic.Commands, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('work'));
      return (signed ? builder.signedBy(plannerKey) : builder).send();
    };
    await send(false);
    await send(true);
    await eventually(() => agent.stats.handled === 1 && agent.stats['dead-lettered'] === 1, 5_000, 'both records');
    expect(principals).toEqual(['planner']);
    const [letter] = await deadLetters(log);
    expect(letter?.reason).toBe(DeadLetterReason.Rejected);
    expect(letter?.attempts).toBe(0);
    expect(letter?.detail).toContain('signature verification failed');
  });

  it('with a verifier, only a signed operator control record pauses the agent', async () => {
    const { laser } = await harness();
    const operatorKey = SigningKey.fromBytes(new Uint8Array(32).fill(11));
    const registry = new KeyRegistry();
    registry.enroll('operator', operatorKey, KeyKind.Operator);
    await using agent = Agent.builder().id('guarded').listenOn(AgentTopic.Commands).verifier(registry).handler(() => undefined).spawn(laser);
    await agent.ready();
    const pause = (session: ConversationId) =>
      laser.agdx(AgentTopic.Control, AgentId.new('operator'), session).command(MintUlid.mint(CorrelationId), text.encode('{}')).withOperation('session_pause').withTarget('guarded');
    const forged = ConversationId.new();
    const genuine = ConversationId.new();
    await pause(forged).send();
    await pause(genuine).signedBy(operatorKey).send();
    await eventually(() => agent.pendingControl(genuine.toString()).pauseRequested, 5_000, 'the signed pause');
    expect(agent.pendingControl(forged.toString()).pauseRequested).toBe(false);
  });
});
