/**
 * Someone who can append to a session's topics (but holds no agent key) copies records of the
 * session, signed or not, and appends them again. Session reads verify no signature: what they
 * refuse, they refuse by what the record says (revision, op id, record id), and what carries no
 * identity (a plain turn), a copy repeats. These tests pin each case, as the README's "What a signature does not
 * cover" describes.
 */
import { AgentTopic, SESSIONS_TOPIC } from '@agdx/agents';
import { sessions, sessionTurnText, type SessionTurn } from '@agdx/sessions';
import type { LogRecord, MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

const text = new TextEncoder();

/** Every record of `topic`, every partition, in offset order. */
async function recordsOf(log: MemoryLog, topic: string): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for (const p of (await log.describeTopic({ stream: 'demo', topic })).partitions) {
    out.push(...(await log.read({ stream: 'demo', topic, partition: p.partition, offset: 0n, maxCount: 10_000 })));
  }
  return out;
}

/** What the intruder does: appends a record's bytes and headers again, on its conversation's partition. */
async function copy(log: MemoryLog, topic: string, record: LogRecord, conversation: ConversationId): Promise<void> {
  await log.append({ stream: 'demo', topic, routing: { key: conversation.toString() }, records: [{ headers: record.headers, payload: record.payload }] });
}

describe('copies of records appended to a session again', () => {
  it('a copied envelope turn (signed or not) is taken once, at its first position, by every turn read', async () => {
    const { log, laser } = await setup();
    const session = sessions(laser).create('replayed-turn');
    const id = session.conversation;
    const checkpoint = await session.checkpoint();
    const agent = AgentId.new('assistant');
    const ask = AgentEnvelope.command(MintUlid.mint(RecordId), id, agent, MintUlid.mint(CorrelationId), text.encode('transfer 100 to Bob'));
    await laser.publish(session.config.topicFor('instruction'), ask, ContentType.raw);
    const answer = AgentEnvelope.response(MintUlid.mint(RecordId), id, agent, MintUlid.mint(CorrelationId), text.encode('done'));
    await laser.publish(session.config.topicFor('response'), answer, ContentType.raw);
    const [instruction] = await recordsOf(log, session.config.topicFor('instruction'));
    const [response] = await recordsOf(log, session.config.topicFor('response'));
    if (instruction === undefined || response === undefined) throw new Error('the turns were not written');
    // a read before the copies: the next reads continue from the kept window
    expect(await session.context()).toHaveLength(2);
    await copy(log, session.config.topicFor('instruction'), instruction, id);
    await copy(log, session.config.topicFor('response'), response, id);
    // the same bytes on another turn topic are the same turn too: its record id names it
    await copy(log, session.config.topicFor('model.response'), response, id);
    const firsts = [`instruction ${instruction.offset}`, `response ${response.offset}`];
    const shown = (turns: readonly SessionTurn[]): string[] => turns.map((t) => `${t.kind} ${t.message.id.offset}`);
    expect(shown(await session.context())).toEqual(firsts);
    expect(shown(await session.turns())).toEqual(firsts);
    expect((await session.scope.read(session.scope.topics)).map((m) => m.id.offset)).toEqual([instruction.offset, response.offset]);
    const later = await session.checkpoint();
    expect(shown(await session.turnsSince(checkpoint))).toEqual(firsts);
    expect(shown(await session.turnsAt(later))).toEqual(firsts);
    const fold = (seen: string[], turn: SessionTurn): string[] => [...seen, `${turn.kind} ${turn.message.id.offset}`];
    expect(await session.replay(checkpoint, [], fold)).toEqual(firsts);
    expect(await session.stateAt(later, [], fold)).toEqual(firsts);
  });

  it('a copied plain turn carries no identity and is read twice', async () => {
    const { log, laser } = await setup();
    const session = sessions(laser).create('replayed-plain-turn');
    await session.append('instruction', 'transfer 100 to Bob');
    const [instruction] = await recordsOf(log, session.config.topicFor('instruction'));
    if (instruction === undefined) throw new Error('the turn was not written');
    await copy(log, session.config.topicFor('instruction'), instruction, session.conversation);
    expect((await session.context()).map(sessionTurnText)).toEqual(['transfer 100 to Bob', 'transfer 100 to Bob']);
  });

  it('a copied state delta applies once (its op id) and a copied older snapshot does not roll the state back (its revision)', async () => {
    const { log, laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('replayed-state');
    const id = session.conversation;
    await session.lifecycle.begin({ agent: AgentId.new('assistant') });
    await session.lifecycle.snapshot({ balance: 0 });
    await session.lifecycle.patch([{ op: 'replace', path: '/balance', value: 100 }]);
    const lane = (await recordsOf(log, SESSIONS_TOPIC)).filter((r) => {
      try {
        return AgentEnvelope.decode(r.payload).conversation.equals(id);
      } catch {
        return false;
      }
    });
    const operationOf = (r: LogRecord): string | undefined => AgentEnvelope.decode(r.payload).operation;
    const snapshot = lane.find((r) => operationOf(r) === 'state_snapshot');
    const delta = lane.find((r) => operationOf(r) === 'state_delta');
    if (snapshot === undefined || delta === undefined) throw new Error('the state records were not written');
    await copy(log, SESSIONS_TOPIC, delta, id);
    await copy(log, SESSIONS_TOPIC, snapshot, id);
    const view = await sessions(laser, undefined, { snapshots: false }).reads.state(id);
    expect(view.document).toEqual({ balance: 100 });
    expect(view.revision).toBe(2n);
  });

  it('a copied memory item is one item (its id), recalled once', async () => {
    const { log, laser } = await setup();
    const session = sessions(laser).create('replayed-memory');
    const memory = session.memory();
    await memory.remember(text.encode('Bob is trusted'));
    const [item] = await recordsOf(log, AgentTopic.Memory);
    if (item === undefined) throw new Error('the memory item was not written');
    await copy(log, AgentTopic.Memory, item, session.conversation);
    const recalled = await memory.recall().fetch();
    expect(recalled.map((i) => i.text())).toEqual(['Bob is trusted']);
  });
});
