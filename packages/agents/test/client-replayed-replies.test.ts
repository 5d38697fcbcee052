/**
 * Copies of genuinely signed replies appended again where a verified caller waits. The signature
 * covers the reply's correlation, conversation, source and target, so a copy answers only a wait
 * for the very correlation it was signed for: an old exchange's response or error cannot satisfy,
 * fail or poison a new request's wait. A caller that reuses a correlation (a second wait on one
 * task, as A2A SubscribeToTask has) would be the exception, since nothing signed tells the rounds apart: the hub remembers
 * the record ids of replies that answered a wait, so a copy of the first round's answer is skipped.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, ANSWERED_REPLY_MEMORY, agentMessageBody, type SkippedRecordError } from '@agdx/agents';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog, type LogRecord } from '@agdx/transport';
import { reply } from './support-client/replies.js';
import { AgentErrorCode, AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, encodeAgentErrorBody, MintUlid, RecordId, type AgentEnvelope as Envelope } from '@agdx/wire';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const ctx = { contentType: ContentType.raw, agentVersion: 1 };
const TOPIC = AgentTopic.Sessions;
const STREAM = 'replayed-replies';

async function setup() {
  const worker = SigningKey.fromBytes(new Uint8Array(32).fill(91));
  const registry = new KeyRegistry();
  registry.enroll('worker', worker);
  const log = new MemoryLog();
  const skipped: SkippedRecordError[] = [];
  const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry, onError: (e) => skipped.push(e as SkippedRecordError) });
  await laser.bootstrap(1);
  /** Publishes a signed envelope and returns the record it became (what an attacker can read). */
  const publish = async (e: Envelope): Promise<LogRecord> => {
    const before = (await log.describeTopic({ stream: STREAM, topic: TOPIC })).partitions[0]?.nextOffset ?? 0n;
    await laser.publish(TOPIC, await worker.sign(e, ctx), ContentType.raw);
    const [record] = await log.read({ stream: STREAM, topic: TOPIC, partition: 0, offset: before, maxCount: 1 });
    return record as LogRecord;
  };
  const replay = (record: LogRecord) => log.append({ stream: STREAM, topic: TOPIC, records: [{ headers: record.headers, payload: record.payload }] });
  const ask = (conversation: ConversationId, correlation: CorrelationId) =>
    laser.request(laser.agdx(TOPIC, 'requester', conversation).command(correlation, enc.encode('q')).withTarget('worker'), { replyTopic: TOPIC, timeoutMs: 10_000 });
  return { laser, skipped, publish, replay, ask };
}

function failure(conversation: ConversationId, correlation: CorrelationId): Envelope {
  return AgentEnvelope.fromFields({
    kind: 'error',
    record: MintUlid.mint(RecordId),
    conversation,
    source: AgentId.new('worker'),
    target: AgentId.new('requester'),
    correlation,
    body: encodeAgentErrorBody({ code: AgentErrorCode.Unauthorized, message: 'denied', retryable: false }),
  });
}

describe('copies of signed replies where a verified caller waits', () => {
  it("an old exchange's signed response, error and event neither answer nor fail a new request", async () => {
    const { laser, skipped, publish, replay, ask } = await setup();
    const conversation = ConversationId.new();
    const first = MintUlid.mint(CorrelationId);
    const firstAnswer = ask(conversation, first);
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    const oldResponse = await publish(reply(conversation, first, 'worker', 'yesterday'));
    expect(dec(agentMessageBody(await firstAnswer))).toBe('yesterday');
    const oldError = await publish(failure(conversation, first));
    const oldEvent = await publish(AgentEnvelope.event(MintUlid.mint(RecordId), conversation, AgentId.new('worker'), enc.encode('progress')).withCorrelation(first));

    // Same conversation, same requester, same agent: only the correlation is new.
    const second = MintUlid.mint(CorrelationId);
    let settled = false;
    const secondAnswer = ask(conversation, second).finally(() => (settled = true));
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await replay(oldResponse);
    await replay(oldError);
    await replay(oldEvent);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    await publish(reply(conversation, second, 'worker', 'today'));
    const message = await secondAnswer;
    expect(dec(agentMessageBody(message))).toBe('today');
    expect(message.verifiedPrincipal?.principal).toBe('worker');
    // The copies name a correlation nobody waits for: not even verified, not reported.
    expect(skipped).toEqual([]);
    await laser.close();
  });

  it('a caller that reuses a correlation for a second round is not answered by a copy of the first round’s reply', async () => {
    const { laser, skipped, publish, replay, ask } = await setup();
    const task = ConversationId.new();
    const correlation = CorrelationId.fromBytes(task.toBytes());
    const round1 = ask(task, correlation);
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    const roundOneAnswer = await publish(reply(task, correlation, 'worker', 'input required'));
    expect(dec(agentMessageBody(await round1))).toBe('input required');
    // Round two on the same task (the same correlation, as an A2A SubscribeToTask waits with): the
    // copy verifies and matches every rule a reply is judged by; only its record id gives it away.
    const round2 = ask(task, correlation);
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await replay(roundOneAnswer);
    await publish(reply(task, correlation, 'worker', 'done'));
    const message = await round2;
    expect(dec(agentMessageBody(message))).toBe('done');
    expect(skipped.map((e) => e.reason)).toEqual(['replayed']);
    expect(skipped[0]?.message).toContain('already answered a wait');
    await laser.close();
  });

  it('remembers the last ANSWERED_REPLY_MEMORY answers: a copy of one older than that answers again (the documented limit)', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: STREAM });
    await laser.bootstrap(1);
    const task = ConversationId.new();
    const reused = CorrelationId.fromBytes(task.toBytes());
    const ask = (conversation: ConversationId, correlation: CorrelationId) =>
      laser.request(laser.agdx(TOPIC, 'requester', conversation).command(correlation, enc.encode('q')).withTarget('worker'), { replyTopic: TOPIC, timeoutMs: 10_000 });
    const answer = async (conversation: ConversationId, correlation: CorrelationId, body: string) => {
      const waiting = ask(conversation, correlation);
      await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
      const position = await laser.publish(TOPIC, reply(conversation, correlation, 'worker', body), ContentType.raw);
      await waiting;
      return position;
    };
    const first = await answer(task, reused, 'first');
    // The copy is still recognised after ANSWERED_REPLY_MEMORY - 1 newer answers ...
    for (let i = 1; i < ANSWERED_REPLY_MEMORY; i++) await answer(task, MintUlid.mint(CorrelationId), `n${i}`);
    const [record] = await log.read({ stream: STREAM, topic: TOPIC, partition: first.partition, offset: first.offset, maxCount: 1 });
    const copyOfFirst = () => log.append({ stream: STREAM, topic: TOPIC, records: [{ headers: record!.headers, payload: record!.payload }] });
    let waiting = ask(task, reused);
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await copyOfFirst();
    await laser.publish(TOPIC, reply(task, reused, 'worker', 'genuine'), ContentType.raw);
    expect(dec(agentMessageBody(await waiting))).toBe('genuine');
    // ... and forgotten once ANSWERED_REPLY_MEMORY newer ones came after it (`genuine` was the last).
    waiting = ask(task, reused);
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await copyOfFirst();
    expect(dec(agentMessageBody(await waiting))).toBe('first');
    await laser.close();
  });

  it('the same holds without a verifier: a record id answers one wait', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: STREAM });
    await laser.bootstrap(1);
    const task = ConversationId.new();
    const correlation = CorrelationId.fromBytes(task.toBytes());
    const ask = () => laser.request(laser.agdx(TOPIC, 'requester', task).command(correlation, enc.encode('q')).withTarget('worker'), { replyTopic: TOPIC, timeoutMs: 10_000 });
    const first = ask();
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await laser.publish(TOPIC, reply(task, correlation, 'worker', 'first'), ContentType.raw);
    expect(dec(agentMessageBody(await first))).toBe('first');
    const [answer] = (await log.read({ stream: STREAM, topic: TOPIC, partition: 0, offset: 0n, maxCount: 10 })).filter((r) => AgentEnvelope.decode(r.payload).kind === 'response');
    const second = ask();
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await log.append({ stream: STREAM, topic: TOPIC, records: [{ headers: answer!.headers, payload: answer!.payload }] });
    await laser.publish(TOPIC, reply(task, correlation, 'worker', 'second'), ContentType.raw);
    expect(dec(agentMessageBody(await second))).toBe('second');
    await laser.close();
  });
});
