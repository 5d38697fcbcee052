/**
 * An attacker who can append to the log but holds no agent's key copies genuinely signed commands
 * and appends them again: on the same topic later, on another agent's topic, or edited into
 * another conversation. The signature covers the envelope (kind, record id, conversation, source,
 * target, correlation, body, ...) but not the topic, partition, offset or broker time it was
 * appended at, so a byte-for-byte copy verifies wherever it lands. These tests pin what the
 * runtime does with each copy.
 */
import { AgdxClient, Agent, AgentTopic, DEAD_LETTER_TOPIC, SkippedRecordError } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { TransportFailureError, type AppendRequest, type LogRecord } from '@agdx/transport';
import { AGENT_OP_VERSION, AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, DeadLetterReason, envelopeRecord, MintUlid, RecordId, ulidBytes } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM, text } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';

const boss = AgentId.new('boss');
const bossKey = SigningKey.fromBytes(new Uint8Array(32).fill(81));

function registry(): KeyRegistry {
  const keys = new KeyRegistry();
  keys.enroll('boss', bossKey, KeyKind.Agent);
  return keys;
}

/** A worker that records the body of every command it runs. */
function worker(laser: AgdxClient, id: string, topic: string, ran: string[], configure: (b: ReturnType<typeof Agent.builder>) => void = () => {}, reported: unknown[] = []) {
  const builder = Agent.builder()
    .id(id)
    .listenOn(topic)
    .verifier(registry())
    .heartbeats(false)
    .onError((e) => reported.push(e))
    .handler((message) => void ran.push(`${id}: ${new TextDecoder().decode(message.envelope?.body)}`));
  configure(builder);
  return builder.spawn(laser);
}

/** Sends a command signed by `boss`, optionally addressed, and returns the record it became. */
async function signedCommand(laser: AgdxClient, topic: string, body: string, target?: string): Promise<LogRecord> {
  const before = await readAll(laser.transport, topic);
  let send = laser.agdx(topic, boss, ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode(body));
  if (target !== undefined) send = send.withTarget(AgentId.new(target));
  await send.signedBy(bossKey).send();
  const after = await readAll(laser.transport, topic);
  const added = after.filter((r) => !before.some((b) => b.offset === r.offset && b.partition === r.partition));
  expect(added).toHaveLength(1);
  return added[0] as LogRecord;
}

/** What the attacker does: appends the captured bytes and headers, unchanged, to `topic`. */
async function replay(laser: AgdxClient, topic: string, captured: LogRecord, payload: Uint8Array = captured.payload): Promise<void> {
  await laser.transport.append({ stream: STREAM, topic, records: [{ headers: captured.headers, payload }] });
}

describe('a signed command copied and appended again (verifier on)', () => {
  it('runs once on its own topic: a later copy with the same signed record id is a duplicate', async () => {
    const { laser } = await harness();
    const ran: string[] = [];
    const reported: unknown[] = [];
    await using x = worker(laser, 'x', AgentTopic.Commands, ran, undefined, reported);
    await x.ready();
    const captured = await signedCommand(laser, AgentTopic.Commands, 'pay 100', 'x');
    await eventually(() => x.stats.handled === 1, 5_000, 'the genuine command');
    await replay(laser, AgentTopic.Commands, captured);
    await replay(laser, AgentTopic.Commands, captured);
    await eventually(() => x.stats.duplicate === 2, 5_000, 'both copies');
    expect(ran).toEqual(['x: pay 100']);
    const replays = reported.filter((e): e is SkippedRecordError => e instanceof SkippedRecordError && e.reason === 'replayed');
    expect(replays).toHaveLength(2);
    expect(replays[0]?.message).toContain('already handled');
  });

  it('a dead-lettered command is forgotten, so its redrive (the same signed bytes appended again) runs', async () => {
    const { laser } = await harness();
    const ran: string[] = [];
    let failures = 1;
    await using x = Agent.builder()
      .id('x')
      .listenOn(AgentTopic.Commands)
      .verifier(registry())
      .heartbeats(false)
      .retry({ maxAttempts: 1, baseDelayMs: 1 })
      .handler((message) => {
        if (failures-- > 0) throw new Error('the ledger is down');
        ran.push(new TextDecoder().decode(message.envelope?.body));
      })
      .spawn(laser);
    await x.ready();
    const captured = await signedCommand(laser, AgentTopic.Commands, 'settle', 'x');
    await eventually(() => x.stats['dead-lettered'] === 1, 5_000, 'the failed command');
    await replay(laser, AgentTopic.Commands, captured);
    await eventually(() => x.stats.handled === 1, 5_000, 'the redriven command');
    // Handled now, so a further copy is a duplicate.
    await replay(laser, AgentTopic.Commands, captured);
    await eventually(() => x.stats.duplicate === 1, 5_000, 'the copy after the redrive');
    expect(ran).toEqual(['settle']);
  });

  it('a command whose dead letter was written only on a re-read (the first append failed) is forgotten too, so its redrive runs', async () => {
    const { laser, log } = await harness();
    const ran: string[] = [];
    let letterFailures = 1;
    let failures = 1;
    // The log refuses the first dead letter once (a transient failure): the record stays
    // uncommitted and its re-read writes the letter without running the handler again.
    const flaky = overriding(log, {
      append: (request: AppendRequest) =>
        request.topic === DEAD_LETTER_TOPIC && letterFailures-- > 0 ? Promise.reject(new TransportFailureError('dlq briefly unavailable')) : log.append(request),
    });
    await using x = Agent.builder()
      .id('x')
      .listenOn(AgentTopic.Commands)
      .verifier(registry())
      .heartbeats(false)
      .pollInterval(20)
      .retry({ maxAttempts: 1, baseDelayMs: 1 })
      .handler((message) => {
        if (failures-- > 0) throw new Error('the ledger is down');
        ran.push(new TextDecoder().decode(message.envelope?.body));
      })
      .spawn(AgdxClient.from(flaky, { stream: STREAM }));
    await x.ready();
    const captured = await signedCommand(laser, AgentTopic.Commands, 'settle', 'x');
    await eventually(() => x.stats['dead-lettered'] === 1, 5_000, 'the failed command, lettered on its re-read');
    expect(await deadLetters(log)).toHaveLength(1);
    await replay(laser, AgentTopic.Commands, captured);
    await eventually(() => x.stats.handled === 1, 5_000, 'the redriven command');
    expect(x.stats.duplicate).toBe(0);
    expect(ran).toEqual(['settle']);
  });

  it('remembers the last `window` record ids: a copy of an older one runs again (the documented limit)', async () => {
    const { laser } = await harness();
    const ran: string[] = [];
    await using x = worker(laser, 'x', AgentTopic.Commands, ran, (b) => b.replayGuard({ window: 2 }));
    await x.ready();
    const a = await signedCommand(laser, AgentTopic.Commands, 'a', 'x');
    await signedCommand(laser, AgentTopic.Commands, 'b', 'x');
    const c = await signedCommand(laser, AgentTopic.Commands, 'c', 'x');
    await eventually(() => x.stats.handled === 3, 5_000, 'three commands');
    await replay(laser, AgentTopic.Commands, c);
    await eventually(() => x.stats.duplicate === 1, 5_000, 'the copy of c');
    await replay(laser, AgentTopic.Commands, a);
    await eventually(() => x.stats.handled === 4, 5_000, 'the copy of a');
    expect(ran).toEqual(['x: a', 'x: b', 'x: c', 'x: a']);
  });

  it('window 0 turns duplicate suppression off; bad options are refused', async () => {
    const { laser } = await harness();
    const ran: string[] = [];
    await using x = worker(laser, 'x', AgentTopic.Commands, ran, (b) => b.replayGuard({ window: 0 }));
    await x.ready();
    const captured = await signedCommand(laser, AgentTopic.Commands, 'ping', 'x');
    await replay(laser, AgentTopic.Commands, captured);
    await eventually(() => x.stats.handled === 2, 5_000, 'both records');
    expect(() => Agent.builder().replayGuard({ window: -1 })).toThrow(/window/);
    expect(() => Agent.builder().replayGuard({ maxAgeMs: 0 })).toThrow(/maxAgeMs/);
    expect(() => Agent.builder().replayGuard({ requireTarget: 'yes' as unknown as boolean })).toThrow(/requireTarget/);
    expect(() => Agent.builder().replayGuard(null as unknown as object)).toThrow(/options object/);
  });

  it('a copy of a command addressed to x on the topic y reads is not run by y (the signed target)', async () => {
    const { laser } = await harness();
    const ran: string[] = [];
    await using x = worker(laser, 'x', AgentTopic.Commands, ran);
    await using y = worker(laser, 'y', AgentTopic.Sessions, ran);
    await Promise.all([x.ready(), y.ready()]);
    const captured = await signedCommand(laser, AgentTopic.Commands, 'delete all', 'x');
    await replay(laser, AgentTopic.Sessions, captured);
    await eventually(() => x.stats.handled === 1 && y.stats.skipped >= 1, 5_000, 'x runs it, y skips the copy');
    expect(ran).toEqual(['x: delete all']);
  });

  it('an unaddressed copy runs wherever it lands, unless the agent requires a verified command to name it', async () => {
    const { log, laser } = await harness();
    const ran: string[] = [];
    await using x = worker(laser, 'x', AgentTopic.Commands, ran);
    // y by default: an unaddressed command is work for whoever reads the topic (the protocol's rule).
    await using y = worker(laser, 'y', AgentTopic.Sessions, ran);
    // z opts in: a verified command must name z.
    await using z = worker(laser, 'z', AgentTopic.Audit, ran, (b) => b.replayGuard({ requireTarget: true }));
    await Promise.all([x.ready(), y.ready(), z.ready()]);
    const captured = await signedCommand(laser, AgentTopic.Commands, 'rotate keys');
    await replay(laser, AgentTopic.Sessions, captured);
    await replay(laser, AgentTopic.Audit, captured);
    await eventually(() => x.stats.handled === 1 && y.stats.handled === 1 && z.stats['dead-lettered'] === 1, 5_000, 'three verdicts');
    expect(ran.sort()).toEqual(['x: rotate keys', 'y: rotate keys']);
    const letter = (await deadLetters(log)).find((l) => l.detail?.includes('requireTarget'));
    expect(letter?.reason).toBe(DeadLetterReason.Rejected);
    expect(letter?.detail).toContain('does not name `z`');
    // A command that names z still runs there.
    await signedCommand(laser, AgentTopic.Audit, 'audit', 'z');
    await eventually(() => z.stats.handled === 1, 5_000, 'the addressed command');
  });

  it('cannot be moved into another conversation: the edited copy fails verification (dead letter Rejected)', async () => {
    const { log, laser } = await harness();
    const ran: string[] = [];
    await using x = worker(laser, 'x', AgentTopic.Commands, ran);
    await x.ready();
    const captured = await signedCommand(laser, AgentTopic.Commands, 'refund', 'x');
    await eventually(() => x.stats.handled === 1, 5_000, 'the genuine command');
    const original = AgentEnvelope.decode(captured.payload);
    const moved = AgentEnvelope.fromFields({ ...original, conversation: ConversationId.new() });
    await replay(laser, AgentTopic.Commands, captured, moved.encode());
    await eventually(() => x.stats['dead-lettered'] === 1, 5_000, 'the edited copy');
    expect(ran).toEqual(['x: refund']);
    const [letter] = await deadLetters(log);
    expect(letter?.reason).toBe(DeadLetterReason.Rejected);
    expect(letter?.detail).toContain('signature verification failed');
  });

  it('with maxAgeMs, a copy appended long after its record id was minted is refused as stale', async () => {
    const { log, laser } = await harness();
    const ran: string[] = [];
    // The copy's record id is new to x (a restarted x, say): only the age check stands in its way.
    await using x = worker(laser, 'x', AgentTopic.Commands, ran, (b) => b.replayGuard({ maxAgeMs: 60_000 }));
    await x.ready();
    // A genuine command whose record id was minted (its ULID time) two minutes before it reaches
    // the log: what a copy of a two-minute-old command looks like.
    const old = RecordId.fromBytes(ulidBytes(Date.now() - 120_000, new Uint8Array(10).fill(7)));
    const unsigned = AgentEnvelope.command(old, ConversationId.new(), boss, MintUlid.mint(CorrelationId), text.encode('old order')).withTarget(AgentId.new('x'));
    const signed = await bossKey.sign(unsigned, { contentType: ContentType.raw, agentVersion: AGENT_OP_VERSION });
    const record = envelopeRecord(signed, ContentType.raw);
    await laser.transport.append({ stream: STREAM, topic: AgentTopic.Commands, records: [{ headers: record.headers, payload: record.payload }] });
    await eventually(() => x.stats['dead-lettered'] === 1, 5_000, 'the stale command');
    await signedCommand(laser, AgentTopic.Commands, 'new order', 'x');
    await eventually(() => x.stats.handled === 1, 5_000, 'the fresh command');
    expect(ran).toEqual(['x: new order']);
    const [letter] = await deadLetters(log);
    expect(letter?.reason).toBe(DeadLetterReason.Rejected);
    expect(letter?.detail).toContain('maxAgeMs');
  });
});
