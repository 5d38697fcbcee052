/**
 * After a restart with control history, an agent rebuilds what it parked from its own records on
 * `agent.sessions`. An attacker who can append there (but holds no key) writes records that only
 * claim to be the agent's: a `session_parked` event naming a command the agent already handled
 * (the drain would handle it again: a replay), and a Canceled session end (the agent would skip
 * every later command of that session: records committed unhandled). An agent with a verifier
 * and a signing key signs its lane records, so recovery trusts only those its own key signed.
 */
import { Agent, AgentTopic, nameId, sessionEndEnvelope, SkippedRecordError, type AgdxClient } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import {
  AgentEnvelope,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  encodeSessionParking,
  encodeSessionPauseRequest,
  envelopeRecord,
  LogPosition,
  MintUlid,
  RecordId,
  SESSION_PARKED_OPERATION,
  TaskState,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { decode, eventually, harness, readAll, STREAM, text } from './support-runtime/harness.js';

const worker = AgentId.new('worker');
const planner = AgentId.new('planner');
const operator = AgentId.new('operator');

const workerKey = SigningKey.fromBytes(new Uint8Array(32).fill(81));
const plannerKey = SigningKey.fromBytes(new Uint8Array(32).fill(82));
const operatorKey = SigningKey.fromBytes(new Uint8Array(32).fill(83));

function registry(): KeyRegistry {
  const r = new KeyRegistry();
  r.enroll('worker', workerKey, KeyKind.Agent);
  r.enroll('planner', plannerKey, KeyKind.Agent);
  r.enroll('operator', operatorKey, KeyKind.Operator);
  return r;
}

function spawnWorker(laser: AgdxClient, handled: string[]) {
  return Agent.builder()
    .id(worker)
    .listenOn(AgentTopic.Commands)
    .verifier(registry())
    .signingKey(workerKey)
    .heartbeats(false)
    .handler((message) => void handled.push(decode(message.envelope?.body ?? new Uint8Array())))
    .spawn(laser);
}

async function command(laser: AgdxClient, session: ConversationId, label: string): Promise<void> {
  await laser.agdx(AgentTopic.Commands, planner, session).command(MintUlid.mint(CorrelationId), text.encode(label)).withTarget(worker).signedBy(plannerKey).send();
}

async function control(laser: AgdxClient, session: ConversationId, operation: string, body: Uint8Array): Promise<void> {
  await laser.agdx(AgentTopic.Control, operator, session).command(MintUlid.mint(CorrelationId), body).withOperation(operation).withTarget(worker).signedBy(operatorKey).send();
}

/** Appends an unsigned envelope to agent.sessions as the attacker: it only claims `source`. */
async function forge(laser: AgdxClient, envelope: AgentEnvelope): Promise<void> {
  const record = envelopeRecord(envelope, ContentType.cbor, { topic: AgentTopic.Sessions });
  await laser.transport.append({ stream: STREAM, topic: AgentTopic.Sessions, routing: { partition: 0 }, records: [{ headers: record.headers, payload: record.payload }] });
}

describe('recovery after a restart trusts only lane records the agent signed (verifier and signing key)', () => {
  it('a forged parking does not replay a handled command, a forged end does not swallow later work', async () => {
    const { laser } = await harness();
    const replayed = ConversationId.new();
    const ended = ConversationId.new();
    const other = ConversationId.new();
    const handled: string[] = [];
    {
      await using agent = spawnWorker(laser, handled);
      await agent.ready();
      await command(laser, replayed, 'pay once');
      await eventually(() => handled.includes('pay once'), 5_000, 'the first command');
      // Control history exists, so the next start recovers parkings from the lane.
      await control(laser, other, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
      await eventually(() => agent.pendingControl(other.toString()).pauseRequested, 5_000, 'the pause');
      await control(laser, other, 'session_resume', text.encode('{}'));
      await eventually(() => !agent.pendingControl(other.toString()).pauseRequested, 5_000, 'the resume');
    }
    const [paid] = (await readAll(laser.transport, AgentTopic.Commands)).filter((r) => decode(AgentEnvelope.decode(r.payload).body) === 'pay once');
    expect(paid).toBeDefined();
    const parking = encodeSessionParking({
      source: { kind: 'message', stream: nameId(STREAM), topic: nameId(AgentTopic.Commands), partition: paid!.partition, offset: paid!.offset, generation: 0n, conversation: replayed.toString() },
      role: worker,
      request: new LogPosition(nameId(STREAM), nameId(AgentTopic.Control), 0, 0n),
    });
    await forge(laser, AgentEnvelope.event(MintUlid.mint(RecordId), replayed, worker, parking).withOperation(SESSION_PARKED_OPERATION));
    // A parking makes the session known to recovery; the forged end then marks it ended.
    const decoy = encodeSessionParking({
      source: { kind: 'message', stream: nameId(STREAM), topic: nameId(AgentTopic.Commands), partition: 0, offset: 1_000_000n, generation: 0n, conversation: ended.toString() },
      role: worker,
      request: new LogPosition(nameId(STREAM), nameId(AgentTopic.Control), 0, 0n),
    });
    await forge(laser, AgentEnvelope.event(MintUlid.mint(RecordId), ended, worker, decoy).withOperation(SESSION_PARKED_OPERATION));
    await forge(laser, sessionEndEnvelope(ended, worker, TaskState.Canceled));

    handled.length = 0;
    await using restarted = spawnWorker(laser, handled);
    await restarted.ready();
    await command(laser, ended, 'later work');
    await eventually(() => restarted.stats.handled + restarted.stats.skipped >= 1, 5_000, 'the later command');
    expect(handled).toEqual(['later work']);
    const skipped = restarted.errors.filter((e): e is SkippedRecordError => e instanceof SkippedRecordError);
    expect(skipped.map((e) => [e.reason, e.position.topic])).toEqual(Array(3).fill(['unverified', AgentTopic.Sessions]));
  });

  it('a genuine signed parking is still recovered: work parked before the restart is handled after the resume', async () => {
    const { laser } = await harness();
    const session = ConversationId.new();
    const handled: string[] = [];
    {
      await using agent = spawnWorker(laser, handled);
      await agent.ready();
      await control(laser, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
      await eventually(() => agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the pause');
      await command(laser, session, 'held work');
      await eventually(() => agent.stats.parked === 1, 5_000, 'the parking');
    }
    await control(laser, session, 'session_resume', text.encode('{}'));
    await using restarted = spawnWorker(laser, handled);
    await restarted.ready();
    await eventually(() => handled.includes('held work'), 5_000, 'the held work');
    expect(restarted.errors.filter((e) => e instanceof SkippedRecordError)).toEqual([]);
  });
});
