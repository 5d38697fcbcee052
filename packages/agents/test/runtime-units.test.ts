import {
  Agent,
  AgentTopic,
  backoffDelayMs,
  checkRetryPolicy,
  deadLetterRecord,
  HandlerConfigError,
  HeartbeatRegistry,
  isRetryable,
  logPositionOf,
  nameId,
  PolicyBlockedError,
  SessionLifecycle,
  sessionEndEnvelope,
  sessionStartEnvelope,
  TestClock,
  type ActionGovernor,
} from '@agdx/agents';
import {
  AgentEnvelope,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  DeadLetterReason,
  decodeAgentDeadLetter,
  decodeProvenanceHeaders,
  decodeSessionHeartbeat,
  decodeSessionStart,
  HeaderName,
  InvalidError,
  MintUlid,
  readUint8Header,
  TaskState,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM } from './support-runtime/harness.js';

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const me = AgentId.new('unit');

describe('retry policy', () => {
  it('backs off exponentially from the base delay, bounded by maxDelayMs', () => {
    const policy = checkRetryPolicy({ maxAttempts: 5, baseDelayMs: 200 });
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(policy, a))).toEqual([200, 400, 800, 1600]);
    expect(backoffDelayMs(policy, 40)).toBe(30_000);
    expect(backoffDelayMs(checkRetryPolicy({ maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50 }), 3)).toBe(50);
    expect(() => checkRetryPolicy({ maxAttempts: 0, baseDelayMs: 1 })).toThrow(InvalidError);
    expect(() => checkRetryPolicy({ maxAttempts: 1, baseDelayMs: -1 })).toThrow(InvalidError);
  });

  it('classifies failures', () => {
    expect(isRetryable(new Error('boom'))).toBe(true);
    expect(isRetryable(new InvalidError('bad'))).toBe(false);
    expect(isRetryable(new PolicyBlockedError('no'))).toBe(false);
  });
});

describe('positions and dead-letter records', () => {
  it('derives stable u32 ids from names', () => {
    expect(nameId('agent.sessions')).toBe(nameId('agent.sessions'));
    expect(nameId('agent.sessions')).not.toBe(nameId('agent.dlq'));
    const position = logPositionOf({ stream: 's', topic: 't', partition: 3, offset: 9n });
    expect([position.partitionId, position.offset]).toEqual([3, 9n]);
  });

  it('builds the capsule with the original bytes and provenance without the deadline', () => {
    const conversation = ConversationId.new();
    const payload = new Uint8Array([1, 2, 3]);
    const record = deadLetterRecord({
      source: { stream: 's', topic: 't', partition: 1, offset: 42n },
      payload,
      reason: DeadLetterReason.RetryExhausted,
      attempts: 5,
      detail: 'boom',
      provenance: { conversation, agent: 'planner', deadlineMicros: 5n, idempotencyKey: 'k' },
    });
    const capsule = decodeAgentDeadLetter(record.payload);
    expect(capsule).toEqual({ source: logPositionOf({ stream: 's', topic: 't', partition: 1, offset: 42n }), reason: 1, attempts: 5, detail: 'boom', payload });
    const provenance = decodeProvenanceHeaders(record.headers);
    expect(provenance.conversation.equals(conversation)).toBe(true);
    expect(provenance.cause).toBe('1:42');
    expect(provenance.deadlineMicros).toBeUndefined();
    expect(provenance.idempotencyKey).toBe('k');
    expect(readUint8Header(record.headers.get(HeaderName.ContentType)!, HeaderName.ContentType)).toBe(ContentType.cbor);
    expect(record.partitionKey).toBe(conversation.toString());
    // Without provenance, a fresh conversation.
    const orphan = deadLetterRecord({ source: { stream: 's', topic: 't', partition: 0, offset: 0n }, payload, reason: 3, attempts: 0 });
    expect(decodeProvenanceHeaders(orphan.headers).cause).toBe('0:0');
  });
});

describe('session lifecycle records', () => {
  it('builds start and end records that pass the wire rules', () => {
    const session = ConversationId.new();
    const start = sessionStartEnvelope(session, me, { agent: me, sdk: { language: 'typescript', version: '0.1.0' }, label: 'triage' });
    expect([start.kind, start.operation, start.taskState, start.last]).toEqual(['status', 'session', TaskState.Working, false]);
    expect(decodeSessionStart(start.body).label).toBe('triage');
    const end = sessionEndEnvelope(session, me, TaskState.Completed, { reason: 'done' });
    expect(end.last).toBe(true);
    expect(() => sessionEndEnvelope(session, me, TaskState.Working)).toThrow(InvalidError);
  });

  it('writes the first terminal only', async () => {
    const written: AgentEnvelope[] = [];
    const lifecycle = new SessionLifecycle(me, async (envelope) => void written.push(envelope));
    const session = ConversationId.new();
    expect(await lifecycle.start(session)).toBe(true);
    expect(await lifecycle.transition(session, TaskState.InputRequired)).toBe(true);
    expect(await lifecycle.end(session, TaskState.Completed)).toBe(true);
    expect(await lifecycle.end(session, TaskState.Failed)).toBe(false);
    expect(await lifecycle.transition(session, TaskState.Working)).toBe(false);
    expect(written.map((e) => [e.taskState, e.last])).toEqual([
      [TaskState.Working, false],
      [TaskState.InputRequired, false],
      [TaskState.Completed, true],
    ]);
  });
});

describe('heartbeats', () => {
  it('beats at the default period, a fifth of the shortest idle timeout, and stops with the last lease', async () => {
    const clock = new TestClock(1_000_000n);
    const beats: { topic: string; sessions: string[]; process: string }[] = [];
    const registry = new HeartbeatRegistry({
      agent: me,
      stream: STREAM,
      clock,
      process: 'proc-1',
      publish: async (topic, envelope) => {
        const body = decodeSessionHeartbeat(envelope.body);
        expect(envelope.operation).toBe('progress');
        expect(envelope.conversation.equals(ConversationId.derive('heartbeat/proc-1'))).toBe(true);
        beats.push({ topic, sessions: body.sessions.map(String), process: body.process });
      },
    });
    const a = ConversationId.new();
    const b = ConversationId.new();
    const leaseA = registry.acquire(a);
    expect(registry.intervalMs).toBe(60_000);
    clock.advanceMs(59_999);
    await flush();
    expect(beats).toHaveLength(0);
    clock.advanceMs(1);
    await flush();
    expect(beats).toEqual([{ topic: 'agent.heartbeats', sessions: [a.toString()], process: 'proc-1' }]);
    const leaseB = registry.acquire(b, 1_000);
    expect(registry.intervalMs).toBe(200);
    clock.advanceMs(200);
    await flush();
    expect(beats[1]?.sessions).toEqual([a.toString(), b.toString()].sort());
    leaseB.release();
    leaseB.release();
    expect(registry.intervalMs).toBe(60_000);
    leaseA.release();
    expect(registry.intervalMs).toBe(0);
    clock.advanceMs(120_000);
    await flush();
    clock.advanceMs(120_000);
    await flush();
    expect(beats).toHaveLength(2);
    expect(clock.pendingSleeps).toBe(0);
    registry.close();
  });

  it('splits more than 2,048 sessions over several records', async () => {
    const clock = new TestClock();
    const sizes: number[] = [];
    const registry = new HeartbeatRegistry({ agent: me, stream: STREAM, clock, publish: async (_t, e) => void sizes.push(decodeSessionHeartbeat(e.body).sessions.length) });
    const leases = Array.from({ length: 2_100 }, () => registry.acquire(ConversationId.new()));
    await registry.beat();
    expect(sizes).toEqual([2_048, 52]);
    for (const lease of leases) lease.release();
    registry.close();
  });

  it('an agent holds a lease while it handles, so a long handler is listed on agent.heartbeats', async () => {
    const h = await harness();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await using agent = Agent.builder()
      .id('slow')
      .listenOn(AgentTopic.Commands)
      .heartbeats({ heartbeatMs: 20 })
      .handler(() => gate)
      .spawn(h.laser);
    await agent.ready();
    const session = ConversationId.new();
    await h.laser.agdx(AgentTopic.Commands, AgentId.new('planner'), session).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).send();
    await eventually(async () => (await readAll(h.log, 'agent.heartbeats')).length >= 2, 5_000, 'heartbeats');
    release();
    const [beat] = await readAll(h.log, 'agent.heartbeats');
    expect(decodeSessionHeartbeat(AgentEnvelope.decode(beat!.payload).body).sessions.map(String)).toEqual([session.toString()]);
  });
});

describe('agent configuration and answers', () => {
  it('refuses an incomplete builder', () => {
    expect(() => Agent.builder().build()).toThrow(HandlerConfigError);
    expect(() => Agent.builder().id('x').build()).toThrow('listenOn');
    expect(() => Agent.builder().id('x').listenOn('t').build()).toThrow('handler');
    expect(() => Agent.builder().concurrency({ kind: 'serial-per-partition', maxPartitions: 0 })).toThrow(InvalidError);
    expect(() => Agent.builder().serves(['ok', ''])).toThrow(InvalidError);
  });

  it('respond() without respondOn is a configuration error that dead-letters the record as Rejected', async () => {
    const h = await harness();
    await using agent = Agent.builder().id('mute').listenOn(AgentTopic.Commands).handler((_m, ctx) => ctx.respond(new Uint8Array([1]))).spawn(h.laser);
    await agent.ready();
    await h.laser.agdx(AgentTopic.Commands, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).send();
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a letter');
    expect((await deadLetters(h.log))[0]?.detail).toContain('respondOn');
  });

  it('acknowledges pick-up with a Working task status and checks every send with the governor', async () => {
    const h = await harness();
    const seen: string[] = [];
    const governor: ActionGovernor = {
      check: (action) => {
        seen.push(`${action.kind}:${action.topic}`);
        return action.kind === 'error' ? { kind: 'deny', reason: 'no errors today' } : { kind: 'allow' };
      },
    };
    await using agent = Agent.builder()
      .id('governed')
      .listenOn(AgentTopic.Commands)
      .respondOn(AgentTopic.Responses)
      .ackOnPickup()
      .governor(governor)
      .retry({ maxAttempts: 3, baseDelayMs: 1 })
      .handler(async (message, ctx) => {
        if (new TextDecoder().decode(message.envelope?.body) === 'fail') await ctx.fail({ code: 7, retryable: false });
        else await ctx.respond(new TextEncoder().encode('ok'));
      })
      .spawn(h.laser);
    await agent.ready();
    const requester = AgentId.new('planner');
    const request = h.laser.agdx(AgentTopic.Commands, requester, ConversationId.new()).command(MintUlid.mint(CorrelationId), new TextEncoder().encode('go'));
    const reply = await h.laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 5_000 });
    expect(reply.envelope?.kind).toBe('response');
    const answers = (await readAll(h.log, AgentTopic.Responses)).map((r) => AgentEnvelope.decode(r.payload));
    expect(answers.map((e) => [e.kind, e.operation, e.taskState])).toEqual([
      ['status', 'task', TaskState.Working],
      ['response', undefined, undefined],
    ]);
    expect(answers.every((e) => e.target?.value === 'planner' && e.correlation?.equals(request.correlation!))).toBe(true);
    await h.laser.agdx(AgentTopic.Commands, requester, ConversationId.new()).command(MintUlid.mint(CorrelationId), new TextEncoder().encode('fail')).send();
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'the denied error');
    expect((await deadLetters(h.log))[0]?.reason).toBe(DeadLetterReason.Rejected);
    expect(seen).toContain('response:agent.responses');
    expect(seen).toContain('error:agent.responses');
  });

  it('ready() rejects on a client without a default stream', async () => {
    const { log } = await harness();
    const { AgdxClient, NoStreamError } = await import('@agdx/agents');
    const agent = Agent.builder().id('lost').listenOn(AgentTopic.Commands).handler(() => undefined).spawn(AgdxClient.from(log));
    await expect(agent.ready()).rejects.toBeInstanceOf(NoStreamError);
  });

  it('shutdown() past the grace hard-stops and throws TimeoutError; the record is delivered again', async () => {
    const h = await harness();
    const { TimeoutError } = await import('@agdx/agents');
    let calls = 0;
    const stuck = Agent.builder()
      .id('stuck')
      .listenOn(AgentTopic.Commands)
      .shutdownGrace(30)
      .handler(() => {
        calls++;
        return calls === 1 ? new Promise<void>(() => undefined) : undefined;
      })
      .spawn(h.connect());
    await stuck.ready();
    await h.laser.agdx(AgentTopic.Commands, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).send();
    await eventually(() => calls === 1, 5_000, 'the stuck handler');
    await expect(stuck.shutdown()).rejects.toBeInstanceOf(TimeoutError);
    await using next = Agent.builder().id('stuck').listenOn(AgentTopic.Commands).handler(() => void calls++).spawn(h.connect());
    await next.ready();
    await eventually(() => calls === 2, 5_000, 'the redelivery');
  });

  it('one idempotency key on two partitions has one effect, even in parallel lanes', async () => {
    const h = await harness(4);
    let effects = 0;
    await using agent = Agent.builder()
      .id('parallel')
      .listenOn(AgentTopic.Commands)
      .concurrency({ kind: 'serial-per-partition', maxPartitions: 4 })
      .handler(async () => {
        effects++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      })
      .spawn(h.laser);
    await agent.ready();
    const conversations: ConversationId[] = [];
    const partitions = new Set<number>();
    while (partitions.size < 2) {
      const conversation = ConversationId.new();
      const receipt = await h.laser
        .agdx(AgentTopic.Commands, AgentId.new('planner'), conversation)
        .command(MintUlid.mint(CorrelationId), new Uint8Array([1]))
        .withIdempotencyKey('same-key')
        .sendReceipt();
      if (!partitions.has(receipt.position.partition)) conversations.push(conversation);
      partitions.add(receipt.position.partition);
    }
    await eventually(() => agent.stats.handled + agent.stats.duplicate >= partitions.size, 5_000, 'both records');
    expect(effects).toBe(1);
  });
});
