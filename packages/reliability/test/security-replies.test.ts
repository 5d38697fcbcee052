/**
 * Security of correlated waits: forged, unsigned, replayed and tampered replies never resolve a
 * verified wait, and a revoked or out-of-window key is refused at the broker-stamped time (not
 * the reader's clock). Every case is decided by order, not by sleeping: the hostile replies are
 * appended first, then a genuine (or sentinel) reply, and the wait must resolve with exactly
 * that one.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, TestClock, agentMessageBody } from '@agdx/agents';
import { mutateBytes, SeededRandom } from '@agdx/reliability';
import { KeyRecord, KeyRegistry, SigningKey } from '@agdx/sign';
import { ManualLogClock, MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, encodeEnvelope, encodeHeaderBlock, MintUlid, RecordId } from '@agdx/wire';

const enc = new TextEncoder();
const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const STREAM = 'sec';
const TOPIC = AgentTopic.Sessions;
const ctx = { contentType: ContentType.raw, agentVersion: 1 };
const T0 = 1_800_000_000_000_000n; // broker time, epoch µs

function reply(conversation: ConversationId, correlation: CorrelationId, body: string, from = 'worker'): AgentEnvelope {
  return AgentEnvelope.fromFields({
    kind: 'response',
    record: MintUlid.mint(RecordId),
    conversation,
    source: AgentId.new(from),
    target: AgentId.new('requester'),
    correlation,
    body: enc.encode(body),
  });
}

async function setup(registry: KeyRegistry, options: { brokerClock?: ManualLogClock; clock?: TestClock } = {}) {
  const log = new MemoryLog({ clock: options.brokerClock });
  const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry, clock: options.clock });
  await laser.bootstrap(2);
  const publish = (e: AgentEnvelope, ct: number = ContentType.raw): Promise<unknown> => laser.publish(TOPIC, e, ct);
  // Every verified wait names whom it trusts; these windows tests accept the worker and the sentinel.
  const wait = (conversation: ConversationId, correlation: CorrelationId, expectFrom: string | readonly string[] = ['worker', 'sentinel']) =>
    laser.replies(TOPIC).expect({ correlation, conversation, requester: 'requester', expectFrom, timeoutMs: 20_000 });
  return { log, laser, publish, wait };
}

describe('verified waits refuse hostile replies', () => {
  it('unsigned, forged, wrong-signer, relabelled, tampered and replayed replies never resolve; the genuine one does', async () => {
    const worker = SigningKey.fromBytes(new Uint8Array(32).fill(11));
    const mallory = SigningKey.fromBytes(new Uint8Array(32).fill(12));
    const stranger = SigningKey.fromBytes(new Uint8Array(32).fill(13));
    const registry = new KeyRegistry();
    registry.enroll('worker', worker);
    registry.enroll('mallory', mallory);
    const { log, laser, publish, wait } = await setup(registry);
    const conversation = ConversationId.derive('security');

    // An earlier, genuinely answered request: its signed reply is what an attacker replays.
    const earlier = MintUlid.mint(CorrelationId);
    const earlierWait = await wait(conversation, earlier, 'worker');
    await publish(await worker.sign(reply(conversation, earlier, 'earlier answer'), ctx));
    const earlierMessage = await earlierWait.reply;
    expect(text(agentMessageBody(earlierMessage))).toBe('earlier answer');

    const correlation = MintUlid.mint(CorrelationId);
    const pending = await wait(conversation, correlation, 'worker');
    const genuine = await worker.sign(reply(conversation, correlation, 'genuine'), ctx);

    await publish(reply(conversation, correlation, 'unsigned'));
    await publish(await stranger.sign(reply(conversation, correlation, 'forged by an unknown key'), ctx));
    await publish(await mallory.sign(reply(conversation, correlation, 'signed by another principal'), ctx));
    await publish(await worker.sign(reply(conversation, correlation, 'signed as json, labelled raw'), { contentType: ContentType.json, agentVersion: 1 }));
    await publish(genuine.with({ body: enc.encode('tampered body') }));
    await publish(genuine.with({ target: AgentId.new('requester'), source: AgentId.new('mallory') }));
    // The earlier genuine reply, re-pointed at this request: the signature no longer covers it.
    const replayedFields = (await worker.sign(reply(conversation, earlier, 'replayed'), ctx)).with({ correlation });
    await publish(replayedFields);
    // The earlier reply replayed byte for byte (same payload and headers) never answers another correlation.
    await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: earlierMessage.id.partition }, records: [{ payload: earlierMessage.payload, headers: earlierMessage.headers }] });

    await publish(genuine);
    const genuineMessage = await pending.reply;
    expect(text(agentMessageBody(genuineMessage))).toBe('genuine');
    expect(genuineMessage.verifiedPrincipal?.principal).toBe('worker');

    // Byte-level tampering of a genuine record: 200 seeded mutations of its payload, then the original.
    const c2 = MintUlid.mint(CorrelationId);
    const second = await wait(conversation, c2, 'worker');
    const signed2 = await worker.sign(reply(conversation, c2, 'second genuine'), ctx);
    const payload = encodeEnvelope(signed2);
    const headers = encodeHeaderBlock(signed2, ContentType.raw, { topic: TOPIC });
    const random = new SeededRandom(0xbad5);
    let mutated = 0;
    for (let i = 0; i < 200; i++) {
      const bytes = mutateBytes(random, payload);
      if (bytes.length === payload.length && bytes.every((b, j) => b === payload[j])) continue;
      mutated += 1;
      await log.append({ stream: STREAM, topic: TOPIC, routing: { key: conversation.toString() }, records: [{ payload: bytes, headers }] });
    }
    expect(mutated).toBeGreaterThan(150);
    await publish(signed2);
    expect(text(agentMessageBody(await second.reply))).toBe('second genuine');
    await laser.close();
  });
});

describe('key validity is judged at the broker timestamp', () => {
  it('refuses a reply stamped before or after the window, and by a revoked key, even when the reader clock says otherwise', async () => {
    const worker = SigningKey.fromBytes(new Uint8Array(32).fill(21));
    const sentinel = SigningKey.fromBytes(new Uint8Array(32).fill(22));
    const from = T0 + 1_000_000n;
    const to = T0 + 2_000_000n;
    const registry = new KeyRegistry();
    registry.enrollRecord(new KeyRecord({ principal: 'worker', verifyingKey: worker.verifyingKey, validFromMicros: from, validToMicros: to }));
    registry.enroll('sentinel', sentinel);
    const brokerClock = new ManualLogClock(T0);
    // The reader's own clock sits inside the window all along: it must not be what decides.
    const clock = new TestClock(from + 500_000n);
    const { laser, publish, wait } = await setup(registry, { brokerClock, clock });
    const conversation = ConversationId.derive('windows');

    // Before the window (broker T0): refused; inside it: accepted.
    const c1 = MintUlid.mint(CorrelationId);
    const w1 = await wait(conversation, c1);
    await publish(await worker.sign(reply(conversation, c1, 'too early'), ctx));
    brokerClock.advance(from - T0);
    await publish(await worker.sign(reply(conversation, c1, 'inside the window'), ctx));
    expect(text(agentMessageBody(await w1.reply))).toBe('inside the window');

    // At the exclusive end of the window: refused; the sentinel's reply shows the wait was live.
    brokerClock.advance(to - from);
    const c2 = MintUlid.mint(CorrelationId);
    const w2 = await wait(conversation, c2);
    await publish(await worker.sign(reply(conversation, c2, 'too late'), ctx));
    await publish(await sentinel.sign(reply(conversation, c2, 'sentinel', 'sentinel'), ctx));
    expect(text(agentMessageBody(await w2.reply))).toBe('sentinel');

    // Revoked: a reply signed while the key was good and published after revocation is refused.
    const registry2 = new KeyRegistry();
    registry2.enroll('worker', worker);
    registry2.enroll('sentinel', sentinel);
    const second = await setup(registry2, { brokerClock, clock });
    const c3 = MintUlid.mint(CorrelationId);
    const w3 = await second.wait(conversation, c3);
    const signedBeforeRevocation = await worker.sign(reply(conversation, c3, 'revoked key'), ctx);
    registry2.revoke(worker.keyId);
    await second.publish(signedBeforeRevocation);
    await second.publish(await sentinel.sign(reply(conversation, c3, 'sentinel', 'sentinel'), ctx));
    expect(text(agentMessageBody(await w3.reply))).toBe('sentinel');
    await laser.close();
    await second.laser.close();
  });
});
