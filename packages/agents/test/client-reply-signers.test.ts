/**
 * Verified replies are bound to their signer: a reply counts only when its key is enrolled for an
 * agent the wait accepts (`expectFrom`, default the request's target) and its `source` is that
 * agent. An untargeted verified wait must name whom it trusts. Every record the hub skips reaches
 * the client's `onError` with its position, and the wait goes on.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, FrontedReplies, HandlerConfigError, SkippedRecordError, agentMessageBody } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { reply } from './support-client/replies.js';
import { AgentId, ContentType, ConversationId, CorrelationId, InvalidError, MintUlid, type AgentEnvelope } from '@agdx/wire';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const ctx = { contentType: ContentType.raw, agentVersion: 1 };
const TOPIC = AgentTopic.Sessions;

async function setup() {
  const keys = {
    worker: SigningKey.fromBytes(new Uint8Array(32).fill(41)),
    helper: SigningKey.fromBytes(new Uint8Array(32).fill(42)),
    insider: SigningKey.fromBytes(new Uint8Array(32).fill(43)),
    admin: SigningKey.fromBytes(new Uint8Array(32).fill(44)),
  };
  const registry = new KeyRegistry();
  registry.enroll('worker', keys.worker);
  registry.enroll('helper', keys.helper);
  registry.enroll('insider', keys.insider);
  registry.enroll('admin', keys.admin, KeyKind.Operator);
  const log = new MemoryLog();
  const skipped: SkippedRecordError[] = [];
  // One partition: every hostile record is judged before the genuine one that follows it.
  const laser = AgdxClient.from(log, { stream: 'trust', verifier: registry, onError: (e) => skipped.push(e) });
  await laser.bootstrap(1);
  const publish = (e: AgentEnvelope): Promise<unknown> => laser.publish(TOPIC, e, ContentType.raw);
  return { keys, log, laser, skipped, publish };
}

describe('verified replies are bound to their signer', () => {
  it('a targeted request refuses an insider reply and a reply whose source is not its key', async () => {
    const { keys, laser, skipped, publish } = await setup();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const answer = laser.request(laser.agdx(TOPIC, 'requester', conversation).command(correlation, enc.encode('q')).withTarget('worker'), {
      replyTopic: TOPIC,
      timeoutMs: 10_000,
    });
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    // An enrolled insider answers as itself, then poses as the worker with its own key.
    await publish(await keys.insider.sign(reply(conversation, correlation, 'insider', 'insider as itself'), ctx));
    await publish(await keys.insider.sign(reply(conversation, correlation, 'worker', 'insider posing as worker'), ctx));
    await publish(await keys.worker.sign(reply(conversation, correlation, 'worker', 'genuine'), ctx));
    const message = await answer;
    expect(dec(agentMessageBody(message))).toBe('genuine');
    expect(message.verifiedPrincipal?.principal).toBe('worker');
    expect(skipped.map((e) => e.reason)).toEqual(['signer-not-allowed', 'source-mismatch']);
    expect(skipped.every((e) => e instanceof SkippedRecordError && e.kind === 'signature')).toBe(true);
    expect(skipped.map((e) => e.position.offset)).toEqual([1n, 2n]);
    expect(skipped[0]?.position).toMatchObject({ stream: 'trust', topic: TOPIC, partition: 0 });
    await laser.close();
  });

  it('an untargeted verified request needs expectFrom; nothing is published without one', async () => {
    const { laser, log } = await setup();
    const conversation = ConversationId.new();
    const request = laser.agdx(TOPIC, 'requester', conversation).command(MintUlid.mint(CorrelationId), enc.encode('q'));
    await expect(laser.request(request, { replyTopic: TOPIC, timeoutMs: 1_000 })).rejects.toBeInstanceOf(InvalidError);
    const description = await log.describeTopic({ stream: 'trust', topic: TOPIC });
    expect(description.partitions[0]?.nextOffset).toBe(0n);
    await expect(
      laser.agdx(TOPIC, 'requester', conversation).requestInput(TOPIC, enc.encode('approve?'), 1_000),
    ).rejects.toBeInstanceOf(InvalidError);
    await expect(laser.replies(TOPIC).expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 10, expectFrom: [] })).rejects.toBeInstanceOf(
      InvalidError,
    );
    await laser.close();
  });

  it('expectFrom takes a list or a predicate; the verifier: null escape hatch still works', async () => {
    const { keys, laser, skipped, publish } = await setup();
    const conversation = ConversationId.new();
    const c1 = MintUlid.mint(CorrelationId);
    const listed = laser.request(laser.agdx(TOPIC, 'requester', conversation).command(c1, enc.encode('q')), {
      replyTopic: TOPIC,
      timeoutMs: 10_000,
      expectFrom: ['worker', AgentId.new('helper')],
    });
    await expect.poll(() => laser.replies(TOPIC).pending).toBe(1);
    await publish(await keys.insider.sign(reply(conversation, c1, 'insider', 'insider'), ctx));
    await publish(await keys.helper.sign(reply(conversation, c1, 'helper', 'from helper'), ctx));
    expect(dec(agentMessageBody(await listed))).toBe('from helper');

    // A predicate sees the verified signer: here, only operator keys.
    const c2 = MintUlid.mint(CorrelationId);
    const operatorsOnly = await laser.replies(TOPIC).expect({
      correlation: c2,
      conversation,
      requester: 'requester',
      timeoutMs: 10_000,
      expectFrom: (signer) => signer.kind === 'operator',
    });
    await publish(await keys.worker.sign(reply(conversation, c2, 'worker', 'agent key'), ctx));
    await publish(await keys.admin.sign(reply(conversation, c2, 'admin', 'operator key'), ctx));
    expect(dec(agentMessageBody(await operatorsOnly.reply))).toBe('operator key');
    expect(skipped.map((e) => e.reason)).toEqual(['signer-not-allowed', 'signer-not-allowed']);

    // A throwing predicate allows nothing.
    const c3 = MintUlid.mint(CorrelationId);
    const throwing = await laser.replies(TOPIC).expect({
      correlation: c3,
      conversation,
      timeoutMs: 10_000,
      expectFrom: () => {
        throw new Error('policy bug');
      },
    });
    await publish(await keys.worker.sign(reply(conversation, c3, 'worker', 'refused'), ctx));
    // The hub must have refused that reply before the unverified wait exists, or the new wait
    // (no verifier) would take it: with a synchronous signer nothing else orders the two.
    await expect.poll(() => skipped.length).toBe(3);
    expect(skipped[2]?.reason).toBe('signer-not-allowed');
    const unverified = await laser.replies(TOPIC).expect({ correlation: c3, conversation, timeoutMs: 10_000, verifier: null });
    await publish(reply(conversation, c3, 'worker', 'plain'));
    expect(dec(agentMessageBody(await unverified.reply))).toBe('plain');
    throwing.cancel();
    await expect(throwing.reply).rejects.toThrow();
    await laser.close();
  });

  it('skips an undecodable record and an unsigned reply, reports both with their position, and goes on', async () => {
    const { keys, log, laser, skipped, publish } = await setup();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const pending = await laser.replies(TOPIC).expect({ correlation, conversation, requester: 'requester', expectFrom: 'worker', timeoutMs: 10_000 });
    await log.append({ stream: 'trust', topic: TOPIC, routing: { partition: 0 }, records: [{ payload: new Uint8Array([0xff, 0x00, 0x13]) }] });
    await publish(reply(conversation, correlation, 'worker', 'unsigned'));
    await publish(await keys.worker.sign(reply(conversation, correlation, 'worker', 'genuine'), ctx));
    expect(dec(agentMessageBody(await pending.reply))).toBe('genuine');
    expect(skipped.map((e) => [e.reason, e.position.offset])).toEqual([
      ['undecodable', 0n],
      ['unverified', 1n],
    ]);
    expect(skipped[0]?.kind).toBe('codec');
    expect(skipped[1]?.kind).toBe('signature');
    await laser.close();
  });
});

describe('FrontedReplies (what the bridges hold)', () => {
  it('resolves targets and reply policies: explicit signers, else the target, else the fronted agent', () => {
    const replies = new FrontedReplies();
    expect(replies.targetOf(undefined)).toBeUndefined();
    expect(replies.policyFor(undefined, false)).toBeUndefined();
    expect(() => replies.policyFor(undefined, true)).toThrow(HandlerConfigError);
    replies.front('worker');
    expect(replies.fronted?.value).toBe('worker');
    expect(replies.targetOf(undefined)).toEqual(AgentId.new('worker'));
    expect(replies.targetOf('other')).toBe('other');
    expect(replies.policyFor('other', true)).toBe('other');
    replies.trust(['a', 'b']);
    expect(replies.policyFor('other', true)).toEqual(['a', 'b']);
    expect(() => replies.trust([])).toThrow(InvalidError);
    expect(() => replies.front('')).toThrow(InvalidError);
  });
});
