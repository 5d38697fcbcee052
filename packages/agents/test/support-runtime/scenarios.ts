/**
 * The runtime's key guarantees as transport-neutral scenario bodies. Each takes a
 * {@link RuntimeEnvFactory}, opens its own environment (its own log or stream), runs, and closes
 * it: the MemoryLog tests and the Iggy tests (runtime-iggy.test.ts) call the same code.
 */
import { AgdxClient, Agent, AgentTopic, agentMessageBody, type AgentHandle, type AgentMessage, type DeadLetterSink } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import {
  AgentEnvelope,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  DeadLetterReason,
  decodeProvenanceHeaders,
  decodeSessionParking,
  decodeSessionTransition,
  encodeSessionPauseRequest,
  MintUlid,
  RecordId,
  type AgentDeadLetter,
} from '@agdx/wire';
import { expect } from 'vitest';
import type { RuntimeEnv, RuntimeEnvFactory } from './env.js';
import { deadLetters, eventually, readAll, stopAll, text } from './harness.js';
import { control, describeLane, lane, work } from './pause.js';

const planner = AgentId.new('planner');
const bodyText = (message: AgentMessage): string => new TextDecoder().decode(message.envelope?.body ?? new Uint8Array());

/** A `work` command from the planner with `body`, in `conversation` (a fresh one by default). */
export function command(body: string, conversation: ConversationId = ConversationId.new()): AgentEnvelope {
  return AgentEnvelope.command(MintUlid.mint(RecordId), conversation, planner, MintUlid.mint(CorrelationId), text.encode(body)).withOperation('work');
}

/** Runs `body` on a fresh environment and closes the environment afterwards, whatever happened. */
async function within(open: RuntimeEnvFactory, partitions: number, body: (env: RuntimeEnv) => Promise<void>): Promise<void> {
  const env = await open(partitions);
  try {
    await body(env);
  } finally {
    await env.close();
  }
}

/** True when the group's stored offset of every non-empty partition of `topic` is its last record. */
async function committedToEnd(env: RuntimeEnv, topic: string, group: string): Promise<boolean> {
  const description = await env.transport.describeTopic({ stream: env.stream, topic });
  for (const p of description.partitions) {
    const stored = await env.transport.getOffset({ stream: env.stream, topic, partition: p.partition, consumer: { kind: 'group', name: group } });
    if (p.nextOffset > 0n && stored !== p.nextOffset - 1n) return false;
  }
  return true;
}

/**
 * Seed 002 "put a worker behind a bridge": an `Agent.builder()` assistant answers
 * `laser.request(...)` with a typed response that carries the correlation, is addressed to the
 * requester and names the request as its cause.
 */
export function seedAssistantAnswersRequest(open: RuntimeEnvFactory): Promise<void> {
  return within(open, 1, async ({ laser }) => {
    const text = new TextEncoder();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

    await using assistant = Agent.builder()
      .id(AgentId.new('assistant'))
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .handler({
        handle: (message, ctx) => ctx.respond(text.encode(`handled: ${decode(agentMessageBody(message))}`)),
      })
      .build()
      .spawn(laser);
    await assistant.ready();

    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const request = laser.agdx(AgentTopic.Sessions, AgentId.new('a2a-gateway'), conversation).command(correlation, text.encode('summarize'));
    const reply = await laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 });
    expect(decode(agentMessageBody(reply))).toBe('handled: summarize');
    expect(reply.envelope?.kind).toBe('response');
    expect(reply.envelope?.correlation?.equals(correlation)).toBe(true);
    expect(reply.envelope?.target?.value).toBe('a2a-gateway');
    expect(reply.envelope?.source.value).toBe('assistant');
    expect(reply.envelope?.cause?.equals(request.recordId)).toBe(true);
    expect(reply.envelope?.causeAt).toBeDefined();
  });
}

/**
 * At least once across a crash: the first of two group members dies (hard stop) after handling
 * its third record and before committing it; a member restarted on the same group handles that
 * record again, the second member loses none, and after a clean shutdown nothing is left
 * uncommitted. Every agent runs on a connection of its own (a process of its own).
 */
export function crashRedeliversAndLosesNothing(open: RuntimeEnvFactory): Promise<void> {
  return within(open, 4, async (env) => {
    const handledBy = new Map<string, string[]>();
    const note = (who: string, message: AgentMessage): void => {
      const key = bodyText(message);
      handledBy.set(key, [...(handledBy.get(key) ?? []), who]);
    };
    let firstHandled = 0;
    let crashed: string | undefined;
    let first: AgentHandle | undefined;
    const spawn = async (who: string): Promise<AgentHandle> =>
      Agent.builder()
        .id('worker')
        .listenOn(AgentTopic.Sessions)
        .concurrency({ kind: 'serial-per-partition', maxPartitions: 4 })
        .pollInterval(20)
        .handler(async (message) => {
          note(who, message);
          const body = bodyText(message);
          if (who === 'first' && ++firstHandled === 3) {
            crashed = body;
            // The effect happened; the process dies before the offset is committed.
            await first?.abort();
          }
        })
        .spawn(await env.connect());
    first = await spawn('first');
    const second = await spawn('second');
    await Promise.all([first.ready(), second.ready()]);
    const bodies = Array.from({ length: 40 }, (_, i) => `r-${i}`);
    for (const body of bodies) await env.laser.publish(AgentTopic.Sessions, command(body), ContentType.raw);
    const restarted = await spawn('restarted');
    await restarted.ready();
    await eventually(async () => bodies.every((b) => handledBy.has(b)) && (await committedToEnd(env, AgentTopic.Sessions, 'worker')), 10_000, 'every record handled and committed');
    // The crashed record was handled by the dead process and again after it (at least once).
    expect(crashed).toBeDefined();
    const handlers = handledBy.get(crashed ?? '') ?? [];
    expect(handlers[0]).toBe('first');
    expect(handlers.length).toBeGreaterThanOrEqual(2);
    // The first agent handled nothing after it died.
    expect([...handledBy.values()].flat().filter((w) => w === 'first')).toHaveLength(3);
    await stopAll(second, restarted);
    // After a clean shutdown nothing is left uncommitted: a fresh member of the group gets nothing.
    const late: string[] = [];
    const probe = Agent.builder().id('worker').listenOn(AgentTopic.Sessions).handler((m) => void late.push(m.envelope?.record?.toString() ?? '')).spawn(await env.connect());
    await probe.ready();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await probe.shutdown();
    expect(late).toEqual([]);
  });
}

/**
 * A poison record (the handler always throws a retryable error) is dead-lettered RetryExhausted
 * after the configured attempts, with its original bytes, its source position, its conversation
 * and its position as cause; it is committed, so it is not handled again.
 */
export function poisonRecordIsDeadLettered(open: RuntimeEnvFactory): Promise<void> {
  return within(open, 1, async (env) => {
    let attempts = 0;
    const sunk: AgentDeadLetter[] = [];
    const sink: DeadLetterSink = { onDeadLetter: (_m, capsule) => void sunk.push(capsule) };
    await using agent = Agent.builder()
      .id('fragile')
      .listenOn(AgentTopic.Sessions)
      .retry({ maxAttempts: 3, baseDelayMs: 1 })
      .deadLetterSink(sink)
      .handler(() => {
        attempts++;
        throw new Error('poison');
      })
      .spawn(env.laser);
    await agent.ready();
    const conversation = ConversationId.new();
    const at = await env.laser.publish(AgentTopic.Sessions, command('poison', conversation), ContentType.raw);
    await eventually(async () => (await deadLetters(env.transport, env.stream)).length === 1, 5_000, 'a dead letter');
    const [original] = await env.transport.read({ stream: env.stream, topic: AgentTopic.Sessions, partition: at.partition, offset: at.offset, maxCount: 1 });
    const [letter] = await deadLetters(env.transport, env.stream);
    expect(original?.offset).toBe(at.offset);
    expect(attempts).toBe(3);
    expect(letter?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letter?.attempts).toBe(3);
    expect(letter?.detail).toContain('poison');
    expect(letter?.payload).toEqual(original?.payload);
    expect(letter?.source.partitionId).toBe(at.partition);
    expect(letter?.source.offset).toBe(at.offset);
    expect(sunk).toHaveLength(1);
    // The letter keeps the record's conversation and names its source position as cause.
    const [dlq] = await readAll(env.transport, 'agent.dlq', env.stream);
    const provenance = decodeProvenanceHeaders(dlq!.headers);
    expect(provenance.conversation.equals(conversation)).toBe(true);
    expect(provenance.cause).toBe(`${at.partition}:${at.offset}`);
    // Committed: the poison record is not handled again.
    await agent.shutdown();
    expect(attempts).toBe(3);
  });
}

/**
 * Forged replies (unsigned, signed by another enrolled key, signed by an unknown key), written
 * before the agent answers, never resolve a verified wait of another process; the agent's signed
 * answer does.
 */
export function forgedReplyNeverResolvesVerifiedWait(open: RuntimeEnvFactory): Promise<void> {
  return within(open, 1, async (env) => {
    const { laser } = env;
    const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
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

    const requester: AgdxClient = await env.connect({ verifier: registry });
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const request = requester.agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation).command(correlation, text.encode('hello')).withTarget('assistant');
    const waiting = requester.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 });

    await eventually(async () => (await env.transport.describeTopic({ stream: env.stream, topic: AgentTopic.Sessions })).partitions[0]!.nextOffset > 0n, 5_000, 'the request');
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
}

/**
 * Seed 000 pause / resume under concurrent work: the pause is acknowledged, the paused session's
 * work is parked while another session's is handled, and after the resume the held work runs
 * oldest first before new work of the session, each unparked, all in lane order.
 */
export function pauseParkResumeUnparkInOrder(open: RuntimeEnvFactory, options: { readonly resumeMayTrailWork?: boolean } = {}): Promise<void> {
  return within(open, 2, async (env) => {
    const worker = AgentId.new('worker');
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id(worker)
      .listenOn(AgentTopic.Commands)
      .concurrency({ kind: 'serial-per-partition', maxPartitions: 2 })
      .handler(async (message) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        handled.push(bodyText(message));
      })
      .spawn(env.laser);
    await agent.ready();

    const paused = ConversationId.new();
    const other = ConversationId.new();
    const pauseAt = await control(env.laser, paused, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    await eventually(async () => describeLane(await lane(env.transport, paused, env.stream)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
    const [ack] = await lane(env.transport, paused, env.stream);
    expect(decodeSessionTransition(ack!.body).acknowledges?.equals(pauseAt)).toBe(true);
    expect(decodeSessionTransition(ack!.body).actor?.value).toBe('worker');
    expect(ack!.cause).toBeDefined();
    expect(agent.pendingControl(paused.toString()).pauseRequested).toBe(true);

    // Concurrent work: the paused session's records are parked, the other session's are handled.
    await Promise.all([work(env.laser, paused, 'p1'), work(env.laser, other, 'o1'), work(env.laser, paused, 'p2'), work(env.laser, other, 'o2'), work(env.laser, paused, 'p3')]);
    await eventually(() => agent.stats.parked === 3 && handled.length === 2, 5_000, 'parking and other work');
    expect(handled.sort()).toEqual(['o1', 'o2']);
    const parkedEvents = (await lane(env.transport, paused, env.stream)).filter((e) => e.operation === 'session_parked');
    expect(parkedEvents).toHaveLength(3);
    // parkings name the source topic's real generation, so a recreated topic is told apart
    const generation = (await env.transport.describeTopic({ stream: env.stream, topic: AgentTopic.Commands })).createdAtMicros;
    expect(generation).toBeGreaterThan(0n);
    for (const event of parkedEvents) {
      const parking = decodeSessionParking(event.body);
      expect(parking.source.kind === 'message' ? parking.source.generation : undefined).toBe(generation);
      expect(parking.role.value).toBe('worker');
      expect(parking.request.equals(pauseAt)).toBe(true);
      expect(event.cause).toBeDefined();
    }

    const resumeAt = await control(env.laser, paused, 'session_resume', text.encode('{}'));
    await work(env.laser, paused, 'p4');
    await eventually(() => handled.length === 6, 5_000, 'held and new work handled');
    expect(handled.slice(2)).toEqual(['p1', 'p2', 'p3', 'p4']);
    // p4 is published right after the resume. The consumer and the control follower read different
    // topics, so p4 may reach the consumer before the follower applied the resume (on an in-process
    // log it does not; over a network it can): then it is parked too, and unparked after p1..p3.
    // Either way it is handled last and the lane keeps the protocol's order.
    const held = agent.stats.parked;
    expect(options.resumeMayTrailWork === true ? [3, 4] : [3]).toContain(held);
    const events = await lane(env.transport, paused, env.stream);
    expect(describeLane(events)).toEqual([
      'ack:paused',
      ...Array.from({ length: held }, () => 'event:session_parked'),
      'ack:working',
      ...Array.from({ length: held }, () => 'event:session_unparked'),
    ]);
    const working = events[1 + held]!;
    expect(decodeSessionTransition(working.body).acknowledges?.equals(resumeAt)).toBe(true);
    // Each unparking names the same source as its parking, oldest first.
    const sources = (operation: string) => events.filter((e) => e.operation === operation).map((e) => decodeSessionParking(e.body).source);
    expect(sources('session_unparked')).toEqual(sources('session_parked'));
    expect(agent.pendingControl(paused.toString()).pauseRequested).toBe(false);
  });
}

/**
 * A partition-per-agent layout: two instances of the assistant in one consumer group. Requests
 * addressed to it land on its partition; exactly one instance (the one the group gives that
 * partition) answers each, and when it leaves the other takes over from the committed offset.
 */
export async function partitionAgentGroupSharesItsPartition(open: RuntimeEnvFactory): Promise<void> {
  const assistant = AgentId.new('assistant');
  const gateway = AgentId.new('gateway');
  const layout = { kind: 'perAgentPartition', partitions: new Map([[assistant.value, 1], [gateway.value, 2]]) } as const;
  const env = await open(4, { layout });
  const counts = new Map<string, number>();
  const spawn = async (tag: string): Promise<AgentHandle> => {
    const agent = Agent.builder()
      .id(assistant)
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .consumerGroup('assistants')
      .pollInterval(20)
      .handler({
        handle: async (message, ctx) => {
          counts.set(tag, (counts.get(tag) ?? 0) + 1);
          await ctx.respond(text.encode(`${tag}: ${bodyText(message)}`));
        },
      })
      .build()
      .spawn(await env.connect());
    return agent;
  };
  const first = await spawn('a');
  const second = await spawn('b');
  try {
    await Promise.all([first.ready(), second.ready()]);
    const ask = async (body: string): Promise<string> => {
      const request = env.laser.agdx(AgentTopic.Sessions, gateway, ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode(body)).withTarget(assistant);
      return new TextDecoder().decode(agentMessageBody(await env.laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 })));
    };
    const before: string[] = [];
    for (let i = 0; i < 4; i++) before.push(await ask(`q${i}`));
    const owner = before[0]?.startsWith('a:') === true ? 'a' : 'b';
    expect(before.every((answer) => answer.startsWith(`${owner}:`))).toBe(true);
    expect((counts.get('a') ?? 0) + (counts.get('b') ?? 0)).toBe(4);
    // the owner leaves: the group hands partition 1 to the other instance
    await (owner === 'a' ? first : second).shutdown();
    expect(await ask('later')).toBe(`${owner === 'a' ? 'b' : 'a'}: later`);
    expect((counts.get('a') ?? 0) + (counts.get('b') ?? 0)).toBe(5);
    await stopAll(first, second);
    // the group committed the assistant's partition to its end, and never the replies' partition
    const offsets = async (partition: number): Promise<bigint | undefined> =>
      env.transport.getOffset({ stream: env.stream, topic: AgentTopic.Sessions, partition, consumer: { kind: 'group', name: 'assistants' } });
    const lane = await env.transport.describeTopic({ stream: env.stream, topic: AgentTopic.Sessions });
    expect(await offsets(1)).toBe((lane.partitions[1]?.nextOffset ?? 0n) - 1n);
    expect(lane.partitions[2]?.nextOffset).toBe(5n);
    expect(await offsets(2)).toBeUndefined();
  } finally {
    await stopAll(first, second);
    await env.close();
  }
}
