/**
 * At-least-once delivery: a producer that retries an append after a timeout leaves the same
 * envelope (the same record id) on the log twice. The session fold shows both copies on the
 * timeline, but folds the copy's usage, error, parked work, status change and control request once.
 */
import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, CorrelationId, MintUlid, RecordId, TaskState, type ConversationId } from '@agdx/wire';
import { clientOn, expectSameAsFresh } from './support/counting-log.js';

const agent = AgentId.parse('planner');

/** Appends a copy of the newest record of `topic` that names `conversation`, on the partition it was on. */
async function redeliverNewest(log: MemoryLog, topic: string, conversation: ConversationId): Promise<void> {
  const described = await log.describeTopic({ stream: 'demo', topic });
  let newest: { partition: number; offset: bigint; ts: bigint } | undefined;
  for (const p of described.partitions) {
    const records = await log.read({ stream: 'demo', topic, partition: p.partition, offset: 0n, maxCount: 10_000 });
    for (const r of records) {
      const header = r.headers.get('gen_ai.conversation.id');
      if (header === undefined || new TextDecoder().decode(header.value) !== conversation.toString()) continue;
      if (newest === undefined || r.timestampMicros >= newest.ts) newest = { partition: p.partition, offset: r.offset, ts: r.timestampMicros };
    }
  }
  if (newest === undefined) throw new Error('nothing to redeliver');
  const [record] = await log.read({ stream: 'demo', topic, partition: newest.partition, offset: newest.offset, maxCount: 1 });
  if (record === undefined) throw new Error('nothing to redeliver');
  await log.append({ stream: 'demo', topic, records: [{ headers: record.headers, payload: record.payload }], routing: { partition: newest.partition } });
}

describe('the session fold under redelivery', () => {
  it('usage, errors and parked work of a redelivered envelope count once; the timeline shows both copies', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 2);
    const factory = sessions(laser);
    const session = factory.create('retried');
    const id = session.conversation;
    await session.lifecycle.begin({ agent, budget: { tokens: 100n } });
    await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('note').withUsage({ inputTokens: 30n, outputTokens: 30n, costMicros: 7n }), 1);
    // the kept fold meets the copy in a later read, a new factory in the same read
    expect((await factory.reads.get(id))?.tokensIn).toBe(30n);
    await redeliverNewest(log, SESSIONS_TOPIC, id);
    await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('session_parked'), 3);
    await redeliverNewest(log, SESSIONS_TOPIC, id);
    const send = laser.agdx(SESSIONS_TOPIC, agent, id);
    await send.command(MintUlid.mint(CorrelationId), new TextEncoder().encode('{}')).withOperation('chat').send();
    await redeliverNewest(log, SESSIONS_TOPIC, id);

    for (const reader of [factory, sessions(laser, undefined, { snapshots: false })]) {
      const info = await reader.reads.get(id);
      expect(info).toMatchObject({ tokensIn: 30n, tokensOut: 30n, costMicros: 7n, overBudget: false, held: 1, modelCalls: 1n, events: 7n });
      expect((await reader.reads.events(id)).items.map((e) => e.display)).toEqual([
        'session.started', 'agent.message', 'agent.message', 'session.parked', 'session.parked', 'model.request', 'model.request',
      ]);
    }
    // a second, distinct spend still counts
    await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('note').withUsage({ inputTokens: 30n, outputTokens: 30n }), 1);
    expect(await factory.reads.get(id)).toMatchObject({ tokensIn: 60n, overBudget: true });
    await expectSameAsFresh(laser, factory, [id]);
  });

  it('a redelivered status or control record does not undo what came after the first copy', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    await laser.ensureOnFirstUseTopic('agent.control');
    const factory = sessions(laser);
    const session = factory.create('undo');
    const id = session.conversation;
    await session.lifecycle.begin({ agent });
    const control = laser.agdx('agent.control', 'operator', id);
    await control.command(MintUlid.mint(CorrelationId), new TextEncoder().encode('{}')).withOperation('session_pause').send();
    await session.lifecycle.transition(TaskState.Paused);
    await control.command(MintUlid.mint(CorrelationId), new TextEncoder().encode('{}')).withOperation('session_resume').send();
    await session.lifecycle.transition(TaskState.Working);
    expect(await factory.reads.get(id)).toMatchObject({ status: 'active', pauseRequested: false });
    // the pause request and the paused transition come back late, one after the other
    const paused = await log.read({ stream: 'demo', topic: SESSIONS_TOPIC, partition: 0, offset: 1n, maxCount: 1 });
    const pause = await log.read({ stream: 'demo', topic: 'agent.control', partition: 0, offset: 0n, maxCount: 1 });
    await log.append({ stream: 'demo', topic: 'agent.control', routing: { partition: 0 }, records: pause.map((r) => ({ headers: r.headers, payload: r.payload })) });
    await log.append({ stream: 'demo', topic: SESSIONS_TOPIC, routing: { partition: 0 }, records: paused.map((r) => ({ headers: r.headers, payload: r.payload })) });
    for (const reader of [factory, sessions(laser, undefined, { snapshots: false })]) {
      expect(await reader.reads.get(id)).toMatchObject({ status: 'active', pauseRequested: false, events: 7n });
    }
  });
});
