import { AgdxClient, Agent, AgentTopic, agentMessageBody, type AgentMessage } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, DeadLetterReason, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, STREAM } from './support-runtime/harness.js';

const text = new TextEncoder();
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe('signatures end to end', () => {
  it('a forged reply never resolves a verified wait; the signed answer of the agent does', async () => {
    const { log, laser } = await harness();
    const assistantKey = SigningKey.fromBytes(new Uint8Array(32).fill(7));
    const malloryKey = SigningKey.fromBytes(new Uint8Array(32).fill(9));
    const registry = new KeyRegistry();
    registry.enroll('assistant', assistantKey, KeyKind.Agent);
    registry.enroll('mallory', malloryKey, KeyKind.Agent);

    let forged!: () => void;
    const forgeriesWritten = new Promise<void>((resolve) => (forged = resolve));
    await using assistant = Agent.builder()
      .id('assistant')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .signingKey(assistantKey)
      .handler(async (message, ctx) => {
        await forgeriesWritten;
        await ctx.respond(text.encode(`genuine: ${decode(agentMessageBody(message))}`));
      })
      .spawn(laser);
    await assistant.ready();

    const requester = AgdxClient.from(log.connect(), { stream: STREAM, verifier: registry });
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const request = requester.agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation).command(correlation, text.encode('hello')).withTarget('assistant');
    const waiting = requester.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 });

    await eventually(async () => (await log.describeTopic({ stream: STREAM, topic: AgentTopic.Sessions })).partitions[0]!.nextOffset > 0n, 5_000, 'the request');
    const forgery = (body: string): AgentEnvelope =>
      AgentEnvelope.response(MintUlid.mint(RecordId), conversation, AgentId.new('assistant'), correlation, text.encode(body)).withTarget(AgentId.new('planner'));
    // Unsigned, claiming to be the assistant.
    await laser.publish(AgentTopic.Sessions, forgery('forged: unsigned'), ContentType.raw);
    // Signed by an enrolled key, but not the expected signer's.
    await laser.publish(AgentTopic.Sessions, forgery('forged: wrong signer'), ContentType.raw, { signer: malloryKey });
    // Signed by an unknown key.
    await laser.publish(AgentTopic.Sessions, forgery('forged: unknown key'), ContentType.raw, { signer: SigningKey.fromBytes(new Uint8Array(32).fill(3)) });
    forged();

    const reply: AgentMessage = await waiting;
    expect(decode(agentMessageBody(reply))).toBe('genuine: hello');
    expect(reply.envelope?.signature).toBeDefined();
    expect((await registry.verifyAt(reply.envelope!, reply.timestampMicros, reply.headers)).principal).toBe('assistant');
    await requester.close();
  });

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
