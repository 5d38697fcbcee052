/**
 * The caller of a dead-lettered command learns of it at once: the runtime answers a command that
 * has a correlation with an error envelope on the agent's reply route (`respondOn`), besides the
 * dead letter. The requesters here run on a TestClock that is never advanced, so their waits
 * cannot end by timeout: each one that settles was settled by a reply.
 */
import { AgdxClient, Agent, AgentTopic, RejectedError, TestClock, agentMessageBody, type AgentMessage } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { TransportFailureError, type AppendRequest, type GroupMember, type JoinGroupRequest } from '@agdx/transport';
import {
  AgentEnvelope,
  AgentErrorCode,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  DeadLetterReason,
  InvalidError,
  MintUlid,
  decodeAgentErrorBody,
  type AgentErrorBody,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';

const text = new TextEncoder();
const planner = AgentId.new('planner');

/** A requester on its own connection whose waits only a reply can end. */
function requester(h: Awaited<ReturnType<typeof harness>>, options: { verifier?: KeyRegistry } = {}): AgdxClient {
  return h.connect({ clock: new TestClock(1_000_000_000n), ...options });
}

/** Sends a command to `target` and waits for its reply (the wait's timeout never passes). */
function ask(client: AgdxClient, target: string, body: string, correlation = MintUlid.mint(CorrelationId)): Promise<AgentMessage> {
  const request = client.agdx(AgentTopic.Sessions, planner, ConversationId.new()).command(correlation, text.encode(body)).withTarget(target);
  return client.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 60_000 });
}

function errorBody(reply: AgentMessage): AgentErrorBody {
  expect(reply.envelope?.kind).toBe('error');
  return decodeAgentErrorBody(agentMessageBody(reply));
}

/** Every envelope on agent.sessions with `correlation`, by kind. */
async function repliesTo(h: Awaited<ReturnType<typeof harness>>, correlation: CorrelationId): Promise<string[]> {
  return (await readAll(h.log, AgentTopic.Sessions))
    .map((r) => AgentEnvelope.decode(r.payload))
    .filter((e) => e.kind !== 'command' && e.correlation?.equals(correlation) === true)
    .map((e) => e.kind);
}

describe('the error reply to a dead-lettered command', () => {
  it('answers request() at once when the attempts run out: Internal, retryable, naming the reason and attempts', async () => {
    const h = await harness(1);
    await using agent = Agent.builder()
      .id('flaky')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 2, baseDelayMs: 0 })
      .handler(() => {
        throw new Error('the model is down');
      })
      .spawn(h.laser);
    await agent.ready();
    const client = requester(h);
    const reply = await ask(client, 'flaky', 'summarize');
    const body = errorBody(reply);
    expect(body.code).toBe(AgentErrorCode.Internal);
    expect(body.retryable).toBe(true);
    expect(body.message).toContain('retry exhausted');
    expect(body.message).toContain('the model is down');
    expect(body.detail?.get('dead_letter_reason')).toBe(DeadLetterReason.RetryExhausted);
    expect(body.detail?.get('attempts')).toBe(2);
    expect(reply.envelope?.source.value).toBe('flaky');
    expect(reply.envelope?.target?.value).toBe('planner');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.RetryExhausted);
    await client.close();
  });

  it('maps a non-retryable failure by its kind and says it is not worth retrying', async () => {
    const h = await harness(1);
    await using agent = Agent.builder()
      .id('strict')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .handler(() => {
        throw new InvalidError('no such document');
      })
      .spawn(h.laser);
    await agent.ready();
    const client = requester(h);
    const body = errorBody(await ask(client, 'strict', 'summarize'));
    expect(body.code).toBe(AgentErrorCode.InvalidRequest);
    expect(body.retryable).toBe(false);
    expect(body.message).toContain('rejected');
    expect(body.detail?.get('dead_letter_reason')).toBe(DeadLetterReason.Rejected);
    await client.close();
  });

  it('answers DeadlineExceeded for a handler that timed out, signed when the agent signs', async () => {
    const h = await harness(1);
    const key = SigningKey.fromBytes(new Uint8Array(32).fill(5));
    const registry = new KeyRegistry();
    registry.enroll('slowpoke', key, KeyKind.Agent);
    await using agent = Agent.builder()
      .id('slowpoke')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .signingKey(key)
      .pollInterval(10)
      .heartbeats(false)
      .handlerTimeout(20)
      .retry({ maxAttempts: 1, baseDelayMs: 0 })
      .handler(() => new Promise<void>(() => undefined))
      .spawn(h.laser);
    await agent.ready();
    // A verifying requester takes only a reply the agent signed.
    const client = requester(h, { verifier: registry });
    const reply = await ask(client, 'slowpoke', 'think hard');
    const body = errorBody(reply);
    expect(body.code).toBe(AgentErrorCode.DeadlineExceeded);
    expect(body.message).toContain('timed out');
    expect(reply.envelope?.signature).toBeDefined();
    expect((await registry.verifyAt(reply.envelope!, reply.timestampMicros, reply.headers)).principal).toBe('slowpoke');
    await client.close();
  });

  it('makes requestInput reject at once with RejectedError', async () => {
    const h = await harness(1);
    await using approver = Agent.builder()
      .id('approver')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 1, baseDelayMs: 0 })
      .handler(() => {
        throw new Error('approval service unreachable');
      })
      .spawn(h.laser);
    await approver.ready();
    const client = requester(h);
    const decision = client.agdx(AgentTopic.Sessions, planner, ConversationId.new()).requestInputFrom('approver', AgentTopic.Sessions, text.encode('restart node-7?'), 60_000);
    await expect(decision).rejects.toBeInstanceOf(RejectedError);
    await expect(decision).rejects.toThrow(/approval service unreachable/);
    await client.close();
  });

  it('never answers twice: a handler that answered before failing gets no error reply', async () => {
    const h = await harness(1);
    await using agent = Agent.builder()
      .id('half')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 2, baseDelayMs: 0 })
      .handler(async (m, ctx) => {
        if (ctx.attempt === 0) await ctx.respond(text.encode('partial answer'));
        throw new Error('failed after answering');
      })
      .spawn(h.laser);
    await agent.ready();
    const correlation = MintUlid.mint(CorrelationId);
    const client = requester(h);
    const reply = await ask(client, 'half', 'go', correlation);
    expect(reply.envelope?.kind).toBe('response');
    await eventually(() => agent.stats['dead-lettered'] === 1, 5_000, 'the letter');
    await agent.shutdown();
    expect(await repliesTo(h, correlation)).toEqual(['response']);
    await client.close();
  });

  it('sends no reply without a reply route, nor to work that failed verification', async () => {
    const h = await harness(1);
    const key = SigningKey.fromBytes(new Uint8Array(32).fill(6));
    const registry = new KeyRegistry();
    registry.enroll('planner', key, KeyKind.Agent);
    await using mute = Agent.builder()
      .id('mute')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 1, baseDelayMs: 0 })
      .handler(() => {
        throw new Error('boom');
      })
      .spawn(h.laser);
    // Unsigned work to a verifying agent is dead-lettered Rejected: its `source` is a claim, so
    // the runtime does not answer it.
    await using guarded = Agent.builder()
      .id('guarded')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .verifier(registry)
      .pollInterval(10)
      .handler(() => undefined)
      .spawn(h.laser);
    await Promise.all([mute.ready(), guarded.ready()]);
    const toMute = MintUlid.mint(CorrelationId);
    const toGuarded = MintUlid.mint(CorrelationId);
    const client = requester(h);
    await client.agdx(AgentTopic.Sessions, planner, ConversationId.new()).command(toMute, text.encode('x')).withTarget('mute').send();
    await client.agdx(AgentTopic.Sessions, planner, ConversationId.new()).command(toGuarded, text.encode('x')).withTarget('guarded').send();
    await eventually(() => mute.stats['dead-lettered'] === 1 && guarded.stats['dead-lettered'] === 1, 5_000, 'both letters');
    await Promise.all([mute.shutdown(), guarded.shutdown()]);
    expect(await repliesTo(h, toMute)).toEqual([]);
    expect(await repliesTo(h, toGuarded)).toEqual([]);
    await client.close();
  });

  it('keeps the record uncommitted while the reply cannot be appended, then sends only the reply (no second letter, no handler rerun)', async () => {
    const h = await harness(1);
    const connection = h.log.connect();
    let refusals = 2;
    const transport = overriding(connection, {
      append: async (request: AppendRequest) => {
        const isError = request.topic === AgentTopic.Sessions && request.records.some((r) => AgentEnvelope.decode(r.payload).kind === 'error');
        if (isError && refusals > 0) {
          refusals--;
          throw new TransportFailureError('injected reply failure');
        }
        return connection.append(request);
      },
    });
    let runs = 0;
    const worker = AgdxClient.from(transport, { stream: STREAM });
    await using agent = Agent.builder()
      .id('stubborn')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 1, baseDelayMs: 0 })
      .handler(() => {
        runs++;
        throw new Error('nope');
      })
      .spawn(worker);
    await agent.ready();
    const correlation = MintUlid.mint(CorrelationId);
    const client = requester(h);
    const reply = await ask(client, 'stubborn', 'go', correlation);
    expect(errorBody(reply).message).toContain('nope');
    await agent.shutdown();
    expect(refusals).toBe(0);
    expect(runs).toBe(1);
    expect(await deadLetters(h.log)).toHaveLength(1);
    expect(await repliesTo(h, correlation)).toEqual(['error']);
    await client.close();
  });

  it('answers again after a restart that replays the record (at least once): the caller took the first', async () => {
    const h = await harness(1);
    const correlation = MintUlid.mint(CorrelationId);
    const spawn = (client: AgdxClient) =>
      Agent.builder()
        .id('crashy')
        .listenOn(AgentTopic.Sessions)
        .respondOn(AgentTopic.Sessions)
        .pollInterval(10)
        .retry({ maxAttempts: 1, baseDelayMs: 0 })
        .handler(() => {
          throw new Error('still broken');
        })
        .spawn(client);
    // The first process never gets a commit through, as if it died before committing.
    const connection = h.log.connect();
    const uncommitting = overriding(connection, {
      joinGroup: async (request: JoinGroupRequest): Promise<GroupMember> =>
        overriding(await connection.joinGroup(request), {
          commit: async () => {
            throw new TransportFailureError('injected commit failure');
          },
        }),
    });
    const first = spawn(AgdxClient.from(uncommitting, { stream: STREAM }));
    await first.ready();
    const client = requester(h);
    const reply = await ask(client, 'crashy', 'go', correlation);
    expect(reply.envelope?.kind).toBe('error');
    await first.abort();
    // The next process replays the record and answers again.
    await using second = spawn(h.connect());
    await second.ready();
    await eventually(() => second.stats['dead-lettered'] === 1, 5_000, 'the replayed letter');
    await second.shutdown();
    const kinds = await repliesTo(h, correlation);
    expect(kinds).toEqual(['error', 'error']);
    await client.close();
  });
});
