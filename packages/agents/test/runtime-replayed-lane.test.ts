/**
 * Signed recovery against copies: after a restart an agent rebuilds what it parked from the lane
 * records its own key signed. An attacker who holds no key cannot forge those (see
 * runtime-forged-lane), but can copy genuine ones and append them again, after the records that
 * superseded them: the agent's `session_parked` event after its `session_unparked`, its Paused
 * acknowledgment after its Working one. Recovery folds the lane by what the copies say (the
 * parked record's position, seen once), so a copy of a parking does not hand the agent a command
 * it already handled.
 */
import { Agent, AgentTopic, type AgdxClient } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import type { LogRecord } from '@agdx/transport';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, encodeSessionPauseRequest, MintUlid, SESSION_PARKED_OPERATION, TaskState } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { decode, eventually, harness, readAll, STREAM, text } from './support-runtime/harness.js';

const worker = AgentId.new('worker');
const planner = AgentId.new('planner');
const operator = AgentId.new('operator');
const workerKey = SigningKey.fromBytes(new Uint8Array(32).fill(84));
const plannerKey = SigningKey.fromBytes(new Uint8Array(32).fill(85));
const operatorKey = SigningKey.fromBytes(new Uint8Array(32).fill(86));

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

async function control(laser: AgdxClient, session: ConversationId, operation: string, body: Uint8Array): Promise<void> {
  await laser.agdx(AgentTopic.Control, operator, session).command(MintUlid.mint(CorrelationId), body).withOperation(operation).withTarget(worker).signedBy(operatorKey).send();
}

/** The worker's own signed lane records of `session` that `pick` selects. */
async function laneRecords(laser: AgdxClient, session: ConversationId, pick: (e: AgentEnvelope) => boolean): Promise<LogRecord[]> {
  return (await readAll(laser.transport, AgentTopic.Sessions)).filter((r) => {
    const e = AgentEnvelope.decode(r.payload);
    return e.source.equals(worker) && e.conversation.equals(session) && e.signature !== undefined && pick(e);
  });
}

describe('recovery after a restart, with copies of the agent’s own signed lane records', () => {
  it('a copied parking and a copied Paused acknowledgment do not make it handle drained work again', async () => {
    const { laser } = await harness(2);
    const session = ConversationId.new();
    const handled: string[] = [];
    {
      await using agent = spawnWorker(laser, handled);
      await agent.ready();
      await control(laser, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
      await eventually(() => agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the pause');
      await laser.agdx(AgentTopic.Commands, planner, session).command(MintUlid.mint(CorrelationId), text.encode('pay once')).withTarget(worker).signedBy(plannerKey).send();
      await eventually(() => agent.stats.parked === 1, 5_000, 'the parking');
      await control(laser, session, 'session_resume', text.encode('{}'));
      await eventually(() => handled.includes('pay once'), 5_000, 'the drained work');
    }
    const parked = await laneRecords(laser, session, (e) => e.kind === 'event' && e.operation === SESSION_PARKED_OPERATION);
    const pausedAck = await laneRecords(laser, session, (e) => e.kind === 'status' && e.operation === 'session' && e.taskState === TaskState.Paused);
    expect(parked).toHaveLength(1);
    expect(pausedAck).toHaveLength(1);
    // The copies go on every partition of the lane, after the records that superseded them.
    for (const partition of [0, 1]) {
      for (const record of [...parked, ...pausedAck]) {
        await laser.transport.append({ stream: STREAM, topic: AgentTopic.Sessions, routing: { partition }, records: [{ headers: record.headers, payload: record.payload }] });
      }
    }

    handled.length = 0;
    await using restarted = spawnWorker(laser, handled);
    await restarted.ready();
    await laser.agdx(AgentTopic.Commands, planner, session).command(MintUlid.mint(CorrelationId), text.encode('later work')).withTarget(worker).signedBy(plannerKey).send();
    await eventually(() => handled.includes('later work'), 5_000, 'the later command');
    expect(handled).toEqual(['later work']);
    expect(restarted.pendingControl(session.toString()).pauseRequested).toBe(false);
  });
});
