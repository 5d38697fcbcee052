/**
 * The runtime ties `source` to the signing key (a key enrolled for one agent cannot speak for
 * another: dead letter SourceMismatch), and the errors it survives reach `onError` instead of
 * vanishing: an undecodable or wrongly signed control record, a pause request whose body cannot
 * be read, a pick-up acknowledgment that could not be published.
 */
import { Agent, AgentTopic, PublishFailedError, SkippedRecordError } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { AgentId, ConversationId, CorrelationId, DeadLetterReason, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, STREAM } from './support-runtime/harness.js';

const text = new TextEncoder();

function registryWith(keys: Record<string, [SigningKey, KeyKind]>): KeyRegistry {
  const registry = new KeyRegistry();
  for (const [principal, [key, kind]] of Object.entries(keys)) registry.enroll(principal, key, kind);
  return registry;
}

describe('the runtime binds source to the signing key', () => {
  it('dead-letters a command signed by one agent that claims to come from another (SourceMismatch); the genuine one is handled', async () => {
    const { log, laser } = await harness();
    const insider = SigningKey.fromBytes(new Uint8Array(32).fill(51));
    const admin = SigningKey.fromBytes(new Uint8Array(32).fill(52));
    const registry = registryWith({ insider: [insider, KeyKind.Agent], admin: [admin, KeyKind.Operator] });
    const seen: string[] = [];
    await using agent = Agent.builder()
      .id('worker')
      .listenOn(AgentTopic.Commands)
      .verifier(registry)
      .heartbeats(false)
      .handler((message) => void seen.push(`${message.envelope?.source.value} signed by ${message.verifiedPrincipal?.principal}`))
      .spawn(laser);
    await agent.ready();
    const command = (source: string) => laser.agdx(AgentTopic.Commands, AgentId.new(source), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('work'));
    await command('admin').signedBy(insider).send();
    await command('admin').signedBy(admin).send();
    await command('insider').signedBy(insider).send();
    await eventually(() => agent.stats.handled === 2 && agent.stats['dead-lettered'] === 1, 5_000, 'three records');
    expect(seen).toEqual(['admin signed by admin', 'insider signed by insider']);
    const [letter] = await deadLetters(log);
    expect(letter?.reason).toBe(DeadLetterReason.SourceMismatch);
    expect(letter?.attempts).toBe(0);
    expect(letter?.detail).toContain('`admin` is not `insider`');
  });
});

describe('errors the runtime survives reach onError', () => {
  it('an undecodable control record and a control record whose source is not its key are reported with their position', async () => {
    const { log, laser } = await harness();
    const operatorKey = SigningKey.fromBytes(new Uint8Array(32).fill(53));
    const registry = registryWith({ operator: [operatorKey, KeyKind.Operator] });
    const reported: unknown[] = [];
    await using agent = Agent.builder()
      .id('guarded')
      .listenOn(AgentTopic.Commands)
      .verifier(registry)
      .heartbeats(false)
      .onError((e) => reported.push(e))
      .handler(() => undefined)
      .spawn(laser);
    await agent.ready();
    await log.append({ stream: STREAM, topic: AgentTopic.Control, routing: { partition: 0 }, records: [{ payload: new Uint8Array([0xa1, 0xff]) }] });
    const pause = (source: string, session: ConversationId) =>
      laser.agdx(AgentTopic.Control, AgentId.new(source), session).command(MintUlid.mint(CorrelationId), text.encode('{}')).withOperation('session_pause').withTarget('guarded');
    const posing = ConversationId.new();
    const genuine = ConversationId.new();
    await pause('admin', posing).signedBy(operatorKey).send();
    await pause('operator', genuine).signedBy(operatorKey).send();
    await eventually(() => agent.pendingControl(genuine.toString()).pauseRequested, 5_000, 'the genuine pause');
    expect(agent.pendingControl(posing.toString()).pauseRequested).toBe(false);
    const skipped = reported.filter((e): e is SkippedRecordError => e instanceof SkippedRecordError);
    expect(skipped.map((e) => [e.reason, e.position.topic, e.position.offset])).toEqual([
      ['undecodable', AgentTopic.Control, 0n],
      ['source-mismatch', AgentTopic.Control, 1n],
    ]);
    expect(agent.errors).toEqual(expect.arrayContaining(skipped));
  });

  it('a pause addressed to everyone whose body cannot be read is reported (unusable), and still holds the session', async () => {
    const { laser } = await harness();
    const reported: unknown[] = [];
    await using agent = Agent.builder()
      .id('guarded')
      .listenOn(AgentTopic.Commands)
      .heartbeats(false)
      .onError((e) => reported.push(e))
      .handler(() => undefined)
      .spawn(laser);
    await agent.ready();
    const session = ConversationId.new();
    await laser.agdx(AgentTopic.Control, AgentId.new('operator'), session).command(MintUlid.mint(CorrelationId), text.encode('not cbor {')).withOperation('session_pause').send();
    await eventually(() => agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the pause');
    await eventually(() => reported.some((e) => e instanceof SkippedRecordError && e.reason === 'unusable'), 5_000, 'the report');
    const [error] = reported.filter((e): e is SkippedRecordError => e instanceof SkippedRecordError);
    expect(error?.position).toEqual({ stream: STREAM, topic: AgentTopic.Control, partition: 0, offset: 0n });
    expect(error?.kind).toBe('codec');
  });

  it('a pick-up acknowledgment that cannot be published is reported; the work still runs', async () => {
    const { laser } = await harness();
    const reported: unknown[] = [];
    let handled = 0;
    await using agent = Agent.builder()
      .id('worker')
      .listenOn(AgentTopic.Commands)
      .respondOn(AgentTopic.Responses)
      .ackOnPickup()
      .heartbeats(false)
      // Every Working acknowledgment is refused; nothing else is.
      .governor({ check: (action) => (action.kind === 'status' ? { kind: 'deny', reason: 'no acks today' } : { kind: 'allow' }) })
      .onError((e) => reported.push(e))
      .handler(() => void handled++)
      .spawn(laser);
    await agent.ready();
    await laser.agdx(AgentTopic.Commands, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('work')).send();
    await eventually(() => handled === 1 && reported.length > 0, 5_000, 'the work and the report');
    const [error] = reported;
    expect(error).toBeInstanceOf(PublishFailedError);
    expect((error as PublishFailedError).context).toMatchObject({ topic: AgentTopic.Commands, partition: 0, offset: 0n });
    expect(((error as PublishFailedError).cause as Error).message).toContain('no acks today');
  });
});

describe('an approval gate under a verifier', () => {
  it('needs expectFrom, and then only the named approver, speaking as itself, decides', async () => {
    const worker = SigningKey.fromBytes(new Uint8Array(32).fill(54));
    const approverKey = SigningKey.fromBytes(new Uint8Array(32).fill(55));
    const insider = SigningKey.fromBytes(new Uint8Array(32).fill(56));
    const registry = registryWith({ worker: [worker, KeyKind.Agent], approver: [approverKey, KeyKind.Agent], insider: [insider, KeyKind.Agent] });
    const { laser } = await harness(1, { verifier: registry });
    const decisions: string[] = [];
    await using gated = Agent.builder()
      .id('worker')
      .listenOn(AgentTopic.Commands)
      .heartbeats(false)
      .retry({ maxAttempts: 1, baseDelayMs: 1 })
      .handler(async (_message, ctx) => {
        try {
          await ctx.approvalGate(AgentTopic.HumanInput, text.encode('unnamed?'), 5_000);
        } catch (error) {
          decisions.push(`unnamed: ${(error as Error).name}`);
        }
        decisions.push(new TextDecoder().decode(await ctx.approvalGate(AgentTopic.HumanInput, text.encode('deploy?'), 5_000, { expectFrom: 'approver' })));
      })
      .spawn(laser);
    // The approver's handler lets an insider decide first (as itself, then posing as the approver).
    await using approver = Agent.builder()
      .id('approver')
      .listenOn(AgentTopic.Sessions)
      .signingKey(approverKey)
      .heartbeats(false)
      .followControl(false)
      .handler(async (message, ctx) => {
        const prompt = message.envelope!;
        for (const as of ['insider', 'approver']) {
          await laser.agdx(AgentTopic.HumanInput, as, prompt.conversation).respond(prompt.correlation!, text.encode(`insider as ${as}`)).withTarget(prompt.source).signedBy(insider).send();
        }
        await ctx.respondInput(AgentTopic.HumanInput, text.encode('approved'));
      })
      .spawn(laser);
    await Promise.all([gated.ready(), approver.ready()]);
    await laser.agdx(AgentTopic.Commands, AgentId.new('worker'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('work')).signedBy(worker).send();
    await eventually(() => decisions.length === 2, 10_000, 'both gates');
    expect(decisions).toEqual(['unnamed: InvalidError', 'approved']);
  });
});

describe('an approval gate of an agent that verifies, on a client that does not', () => {
  it('waits with the agent\'s verifier: an unsigned or insider answer does not decide, the approver\'s signed one does', async () => {
    const worker = SigningKey.fromBytes(new Uint8Array(32).fill(57));
    const approverKey = SigningKey.fromBytes(new Uint8Array(32).fill(58));
    const insider = SigningKey.fromBytes(new Uint8Array(32).fill(59));
    const registry = registryWith({ worker: [worker, KeyKind.Agent], approver: [approverKey, KeyKind.Agent], insider: [insider, KeyKind.Agent] });
    // The client has no verifier; the agent does.
    const { laser } = await harness(1);
    const decisions: string[] = [];
    await using gated = Agent.builder()
      .id('worker')
      .listenOn(AgentTopic.Commands)
      .verifier(registry)
      .heartbeats(false)
      .retry({ maxAttempts: 1, baseDelayMs: 1 })
      .handler(async (_message, ctx) => {
        decisions.push(new TextDecoder().decode(await ctx.approvalGate(AgentTopic.HumanInput, text.encode('deploy?'), 5_000, { expectFrom: 'approver' })));
      })
      .spawn(laser);
    await using approver = Agent.builder()
      .id('approver')
      .listenOn(AgentTopic.Sessions)
      .signingKey(approverKey)
      .heartbeats(false)
      .followControl(false)
      .handler(async (message, ctx) => {
        const prompt = message.envelope!;
        const answer = (as: string) => laser.agdx(AgentTopic.HumanInput, as, prompt.conversation).respond(prompt.correlation!, text.encode(`forged as ${as}`)).withTarget(prompt.source);
        await answer('approver').send();
        await answer('approver').signedBy(insider).send();
        await ctx.respondInput(AgentTopic.HumanInput, text.encode('approved'));
      })
      .spawn(laser);
    await Promise.all([gated.ready(), approver.ready()]);
    await laser.agdx(AgentTopic.Commands, AgentId.new('worker'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('work')).signedBy(worker).send();
    await eventually(() => decisions.length === 1, 10_000, 'the gate');
    expect(decisions).toEqual(['approved']);
  });
});
