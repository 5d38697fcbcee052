/**
 * The session fold recognises a redelivered copy (the same record id, or a delta's op id) while
 * its first copy is among the newest REDELIVERY_WINDOW records of the partition: however many
 * other records of the session came in between, and also after a restart that resumed from a fold
 * snapshot. Beyond the window a copy counts again, the same for every reader.
 */
import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC, type AgdxClient } from '@agdx/agents';
import { REDELIVERY_WINDOW, sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, MintUlid, RecordId, type ConversationId } from '@agdx/wire';
import { clientOn, expectSameAsFresh } from './support/counting-log.js';

const agent = AgentId.parse('planner');

/** Publishes an event with usage on the session's lane partition; returns its position. */
async function spend(laser: AgdxClient, id: ConversationId, tokens: bigint): Promise<{ partition: number; offset: bigint }> {
  const envelope = AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('note').withUsage({ inputTokens: tokens, outputTokens: 0n });
  return laser.publish(SESSIONS_TOPIC, envelope, 1);
}

/** Appends a copy of the record at `at`, on its partition: what a producer's retried append leaves behind. */
async function redeliver(log: MemoryLog, at: { partition: number; offset: bigint }): Promise<bigint> {
  const [record] = await log.read({ stream: 'demo', topic: SESSIONS_TOPIC, partition: at.partition, offset: at.offset, maxCount: 1 });
  if (record === undefined) throw new Error('nothing to redeliver');
  const appended = await log.append({ stream: 'demo', topic: SESSIONS_TOPIC, records: [{ headers: record.headers, payload: record.payload }], routing: { partition: at.partition } });
  return appended.baseOffset;
}

/** Appends `count` header-less records to the partition: records of no session that only move its offsets on. */
async function fill(log: MemoryLog, partition: number, count: number): Promise<void> {
  const records = Array.from({ length: count }, () => ({ headers: new Map(), payload: new Uint8Array([1]) }));
  await log.append({ stream: 'demo', topic: SESSIONS_TOPIC, records, routing: { partition } });
}

describe('the session fold redelivery window', () => {
  it('a copy that arrives after more than 16 other effectful records of its session still folds once', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const factory = sessions(laser);
    const id = factory.create('late').conversation;
    const first = await spend(laser, id, 1n);
    for (let i = 0; i < 40; i++) await spend(laser, id, 10n);
    expect((await factory.reads.get(id))?.tokensIn).toBe(401n);
    await redeliver(log, first);
    for (const reader of [factory.reads, sessions(laser, undefined, { snapshots: false }).reads]) {
      expect(await reader.get(id)).toMatchObject({ tokensIn: 401n, events: 42n });
    }
    await expectSameAsFresh(laser, factory, [id]);
  });

  it('a copy that arrives after a restart from a fold snapshot folds once', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 2);
    const factory = sessions(laser);
    const id = factory.create('restarted').conversation;
    await factory.create('restarted').lifecycle.begin({ agent });
    const first = await spend(laser, id, 7n);
    await factory.snapshot();
    await redeliver(log, first);
    const restarted = sessions(laser);
    expect(await restarted.reads.get(id)).toMatchObject({ tokensIn: 7n, events: 3n });
    expect((await restarted.reads.sources(id)).start.from).toBe('snapshot');
    // and a distinct spend after the restart still counts
    await spend(laser, id, 7n);
    expect((await restarted.reads.get(id))?.tokensIn).toBe(14n);
    await expectSameAsFresh(laser, restarted, [id]);
  });

  it('the window is counted in records of the partition: a copy at its edge folds once, one past it counts again, for every reader', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const factory = sessions(laser);
    const id = factory.create('edge').conversation;
    const first = await spend(laser, id, 5n);
    await factory.snapshot();
    await fill(log, first.partition, REDELIVERY_WINDOW - 2);
    const inside = await redeliver(log, first);
    expect(inside - first.offset).toBe(BigInt(REDELIVERY_WINDOW - 1));
    expect((await factory.reads.get(id))?.tokensIn).toBe(5n);
    const outside = await redeliver(log, first);
    expect(outside - first.offset).toBe(BigInt(REDELIVERY_WINDOW));
    const resumed = sessions(laser);
    for (const reader of [factory, resumed, sessions(laser, undefined, { snapshots: false })]) {
      expect((await reader.reads.get(id))?.tokensIn).toBe(10n);
    }
    expect((await resumed.reads.sources(id)).start.from).toBe('snapshot');
    await expectSameAsFresh(laser, factory, [id]);
  });

  it('the applied op ids a state fold holds stay within the window, and a repeat inside it is still a duplicate', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const factory = sessions(laser);
    const session = factory.create('ops');
    const writer = session.lifecycle;
    await writer.begin({ agent });
    let at = await writer.patch([{ op: 'add', path: '/n', value: 0 }], { opId: 'op-0' });
    for (let i = 1; i < 50; i++) await writer.patch([{ op: 'replace', path: '/n', value: i }], { opId: `op-${i}` });
    await fill(log, at.partition, REDELIVERY_WINDOW);
    for (let i = 50; i < 100; i++) at = await writer.patch([{ op: 'replace', path: '/n', value: i }], { opId: `op-${i}` });
    const held = async (): Promise<readonly string[]> => (await factory.reads.foldedState(session.conversation)).folded?.state.fold?.appliedOpIds ?? [];
    // the first 50 are more than the window behind the newest delta: only the newest 50 are held
    expect(await held()).toEqual(Array.from({ length: 50 }, (_, i) => `op-${50 + i}`));
    // a retry of a held op id is a duplicate; one of an op id the window moved past applies again
    await writer.patch([{ op: 'replace', path: '/n', value: -1 }], { opId: 'op-99' });
    await writer.patch([{ op: 'replace', path: '/n', value: -2 }], { opId: 'op-0' });
    for (const reader of [factory, sessions(laser, undefined, { snapshots: false })]) {
      const state = await reader.state(session.conversation);
      expect(state.document).toEqual({ n: -2 });
      expect(state.history.slice(-2).map((h) => h.outcome)).toEqual(['duplicate', 'applied']);
      expect(state.revision).toBe(writer.revision);
    }
    expect(writer.document).toEqual({ n: -2 });
    // a writer that starts from the lane agrees too
    const fresh = sessions(laser).create('ops').lifecycle;
    await fresh.patch([{ op: 'replace', path: '/n', value: -3 }], { opId: 'op-98', agent });
    await fresh.patch([{ op: 'replace', path: '/n', value: -4 }], { opId: 'op-fresh', agent });
    expect((await factory.state(session.conversation)).revision).toBe(fresh.revision);
    expect(fresh.document).toEqual({ n: -4 });
  });
});
