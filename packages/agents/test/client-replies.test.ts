/**
 * Correlated waits: the seed rules (correlation, session, response or error, addressed to the
 * requester, never the request itself) and the verifier gate — an unsigned reply, an unknown key,
 * a tampered signature, the wrong signer or a key outside its validity window at the broker
 * timestamp never resolves a verified wait, while the genuine reply does.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, CancelledError, TimeoutError, TestClock, agentMessageBody, type AgentMessage } from '@agdx/agents';
import { KeyRecord, KeyRegistry, SigningKey } from '@agdx/sign';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { reply } from './support-client/replies.js';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);

async function setup(registry?: KeyRegistry): Promise<{ laser: AgdxClient; log: MemoryLog }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'demo', verifier: registry });
  await laser.bootstrap(3);
  return { laser, log };
}

async function settledSoon(p: Promise<unknown>, ms = 30): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setTimeout(r, ms));
  return settled;
}

const ctx = { contentType: ContentType.raw, agentVersion: 1 };

describe('correlated waits, unverified', () => {
  it('resolve only on a response or error of the same correlation and session, addressed to the requester, never the request', async () => {
    const { laser } = await setup();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const request = laser.agdx(AgentTopic.Sessions, AgentId.new('requester'), conversation).command(correlation, enc.encode('do it')).withTarget('worker');
    const hub = laser.replies(AgentTopic.Sessions);
    const pending = await hub.expect({ correlation, conversation, requester: 'requester', request: request.recordId, timeoutMs: 5_000 });
    await request.send(); // the request itself never answers
    const publish = (e: AgentEnvelope): Promise<unknown> => laser.publish(AgentTopic.Sessions, e, ContentType.raw);
    await publish(reply(conversation, MintUlid.mint(CorrelationId), 'worker', 'other correlation'));
    await publish(reply(ConversationId.new(), correlation, 'worker', 'other session'));
    await publish(reply(conversation, correlation, 'worker', 'addressed elsewhere', { target: AgentId.new('someone-else') }));
    await publish(
      AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation, source: AgentId.new('worker'), correlation, body: enc.encode('an event') }),
    );
    await publish(
      AgentEnvelope.fromFields({ kind: 'status', record: MintUlid.mint(RecordId), conversation, source: AgentId.new('worker'), correlation, operation: 'task', taskState: 2 }),
    );
    expect(await settledSoon(pending.reply)).toBe(false);
    await publish(reply(conversation, correlation, 'worker', 'the answer'));
    const message = await pending.reply;
    expect(dec(agentMessageBody(message))).toBe('the answer');
    expect(hub.pending).toBe(0);
  });

  it('accepts an unaddressed reply and an error reply', async () => {
    const { laser } = await setup();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const pending = await laser.replies(AgentTopic.Responses).expect({ correlation, conversation, requester: 'requester', timeoutMs: 5_000 });
    await laser.agdx(AgentTopic.Responses, 'worker', conversation).fail(correlation, { code: 6, message: 'tool broke', retryable: false }).send();
    const message: AgentMessage = await pending.reply;
    expect(message.envelope?.kind).toBe('error');
  });

  it('times out, cancels, and fails on a closed client', async () => {
    const clock = new TestClock(10n);
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo', clock });
    await laser.bootstrap(1);
    const hub = laser.replies(AgentTopic.Sessions);
    const base = { correlation: MintUlid.mint(CorrelationId), conversation: ConversationId.new(), timeoutMs: 50 };
    const timed = hub.wait(base);
    timed.catch(() => undefined);
    while (clock.pendingSleeps === 0) await new Promise((r) => setTimeout(r, 1));
    clock.advanceMs(50);
    await expect(timed).rejects.toBeInstanceOf(TimeoutError);
    const c = new AbortController();
    const aborted = hub.wait({ ...base, signal: c.signal });
    aborted.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1));
    c.abort();
    await expect(aborted).rejects.toBeInstanceOf(CancelledError);
    const open = hub.wait(base);
    open.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1));
    await laser.close();
    await expect(open).rejects.toBeInstanceOf(CancelledError);
    await expect(hub.wait(base)).rejects.toBeInstanceOf(CancelledError);
  });

  it('serves many concurrent waits from one hub per (stream, topic)', async () => {
    const { laser } = await setup();
    const conversation = ConversationId.new();
    const hub = laser.replies(AgentTopic.Sessions);
    expect(laser.replies(AgentTopic.Sessions)).toBe(hub);
    expect(laser.withDefaultStream('demo').replies(AgentTopic.Sessions)).toBe(hub);
    const corrs = Array.from({ length: 50 }, () => MintUlid.mint(CorrelationId));
    const waits = await Promise.all(corrs.map((correlation) => hub.expect({ correlation, conversation, timeoutMs: 5_000 })));
    await Promise.all(corrs.map((c, i) => laser.agdx(AgentTopic.Sessions, 'worker', conversation).respond(c, enc.encode(String(i))).send()));
    const bodies = await Promise.all(waits.map(async (w) => dec(agentMessageBody(await w.reply))));
    expect(bodies).toEqual(corrs.map((_, i) => String(i)));
  });

  it('several waits on one correlation: a cancelled one leaves, the others are all answered by one reply', async () => {
    const { laser } = await setup();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const hub = laser.replies(AgentTopic.Sessions);
    const waits = await Promise.all(Array.from({ length: 3 }, () => hub.expect({ correlation, conversation, timeoutMs: 5_000 })));
    (waits[1] as (typeof waits)[number]).cancel();
    await expect((waits[1] as (typeof waits)[number]).reply).rejects.toBeInstanceOf(CancelledError);
    expect(hub.pending).toBe(2);
    await laser.agdx(AgentTopic.Sessions, 'worker', conversation).respond(correlation, enc.encode('once')).send();
    for (const w of [waits[0], waits[2]]) expect(dec(agentMessageBody(await (w as (typeof waits)[number]).reply))).toBe('once');
    expect(hub.pending).toBe(0);
  });

  it('one signal shared by many waits cancels them all, without a listener per wait', async () => {
    const { laser } = await setup();
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const conversation = ConversationId.new();
      const hub = laser.replies(AgentTopic.Sessions);
      const waits = await Promise.all(
        Array.from({ length: 40 }, () => hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 60_000, signal: controller.signal })),
      );
      for (const w of waits) w.reply.catch(() => undefined);
      controller.abort();
      for (const w of waits) await expect(w.reply).rejects.toBeInstanceOf(CancelledError);
      expect(hub.pending).toBe(0);
      await new Promise((r) => setTimeout(r, 10));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a signal that fires while the hub is still starting cancels the wait (it is not missed)', async () => {
    const { laser } = await setup();
    const controller = new AbortController();
    // The hub seeds itself (an await) before it watches the signal; abort in that window.
    const expecting = laser.replies(AgentTopic.Responses).expect({ correlation: MintUlid.mint(CorrelationId), conversation: ConversationId.new(), timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    const pending = await expecting;
    await expect(pending.reply).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('correlated waits with a verifier', () => {
  it('a forged reply never resolves a verified wait; the genuine one does', async () => {
    const worker = SigningKey.fromBytes(seed(1));
    const mallory = SigningKey.fromBytes(seed(2));
    const stranger = SigningKey.fromBytes(seed(3));
    const registry = new KeyRegistry();
    registry.enroll('worker', worker);
    registry.enroll('mallory', mallory);
    const { laser } = await setup(registry);
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const hub = laser.replies(AgentTopic.Sessions);
    const pending = await hub.expect({ correlation, conversation, requester: 'requester', expectedSigner: 'worker', timeoutMs: 5_000 });
    const publish = (e: AgentEnvelope): Promise<unknown> => laser.publish(AgentTopic.Sessions, e, ContentType.raw);

    await publish(reply(conversation, correlation, 'worker', 'unsigned'));
    await publish(await stranger.sign(reply(conversation, correlation, 'worker', 'unknown key'), ctx));
    const signed = await worker.sign(reply(conversation, correlation, 'worker', 'genuine text'), ctx);
    await publish(signed.withBody(enc.encode('tampered text')));
    await publish(await mallory.sign(reply(conversation, correlation, 'worker', 'wrong signer'), ctx));
    // Signed over another content type: the observed agdx.ct header breaks the signed context.
    await publish(await worker.sign(reply(conversation, correlation, 'worker', 'relabelled'), { contentType: ContentType.json, agentVersion: 1 }));
    expect(await settledSoon(pending.reply)).toBe(false);

    await publish(await worker.sign(reply(conversation, correlation, 'worker', 'genuine'), ctx));
    const message = await pending.reply;
    expect(dec(agentMessageBody(message))).toBe('genuine');
    expect(message.verifiedPrincipal?.principal).toBe('worker');
  });

  it('judges key validity at the broker timestamp', async () => {
    const worker = SigningKey.fromBytes(seed(4));
    const registry = new KeyRegistry();
    // The key expired long before any record this test writes.
    registry.enrollRecord(new KeyRecord({ principal: 'worker', verifyingKey: worker.verifyingKey, validFromMicros: 0n, validToMicros: 1_000n }));
    const { laser } = await setup(registry);
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const pending = await laser.replies(AgentTopic.Sessions).expect({ correlation, conversation, expectFrom: 'worker', timeoutMs: 5_000 });
    await laser.publish(AgentTopic.Sessions, await worker.sign(reply(conversation, correlation, 'worker', 'stale key'), ctx), ContentType.raw);
    expect(await settledSoon(pending.reply)).toBe(false);
    pending.cancel();
    await expect(pending.reply).rejects.toBeInstanceOf(CancelledError);
  });

  it('request() through the builder waits for the target as signer; verifier: null turns the gate off', async () => {
    const worker = SigningKey.fromBytes(seed(5));
    const registry = new KeyRegistry();
    registry.enroll('worker', worker);
    const { laser } = await setup(registry);
    const conversation = ConversationId.new();
    // Waits until `count` records (the requests) are on the lane.
    const requestsSent = async (count: number): Promise<void> => {
      for (;;) {
        const d = await laser.transport.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions });
        if (d.partitions.reduce((n, p) => n + Number(p.nextOffset), 0) >= count) return;
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    const correlation = MintUlid.mint(CorrelationId);
    const req = laser.request(
      laser.agdx(AgentTopic.Sessions, 'requester', conversation).command(correlation, enc.encode('x')).withTarget('worker'),
      { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 },
    );
    await requestsSent(1);
    await laser.agdx(AgentTopic.Sessions, 'worker', conversation).respond(correlation, enc.encode('unsigned')).withTarget('requester').send();
    expect(await settledSoon(req)).toBe(false);
    await laser.agdx(AgentTopic.Sessions, 'worker', conversation).respond(correlation, enc.encode('signed')).withTarget('requester').signedBy(worker).send();
    expect(dec(agentMessageBody(await req))).toBe('signed');

    const c2 = MintUlid.mint(CorrelationId);
    const open = laser.request(laser.agdx(AgentTopic.Sessions, 'requester', conversation).command(c2, enc.encode('y')), {
      replyTopic: AgentTopic.Sessions,
      timeoutMs: 5_000,
      verifier: null,
    });
    await requestsSent(4);
    await laser.agdx(AgentTopic.Sessions, 'worker', conversation).respond(c2, enc.encode('plain')).send();
    expect(dec(agentMessageBody(await open))).toBe('plain');
  });
});
