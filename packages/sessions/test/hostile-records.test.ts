/**
 * A record the session reads cannot use, among good ones (issue 19): the fold, the state read and
 * the turn reads skip it, report it once per read to `onError` with its position, and go on.
 */
import { SESSIONS_TOPIC } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { AgentEnvelope, AgentId, CodecError, ContentType, ConversationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

const agent = AgentId.new('assistant');

/** A CBOR array of `n` zeros: before bounded decoding, 16 MiB of it took seconds to refuse. */
function zeros(n: number): Uint8Array {
  const out = new Uint8Array(n + 5);
  out.set([0x9a, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  return out;
}

describe('session reads past hostile records', () => {
  it('skip an undecodable record and an unreadable state body, report each with its position, keep the rest', async () => {
    const { log, laser } = await setup();
    const errors: CodecError[] = [];
    const factory = sessions(laser, undefined, { onError: (e) => errors.push(e) });
    const session = factory.create('hostile');
    const id = session.conversation;
    await session.lifecycle.begin({ agent });
    await session.lifecycle.snapshot({ step: 1 });
    // An envelope whose state snapshot body is a 16 MiB array (within the input cap, over the item cap).
    const state = AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation: id, source: agent, operation: 'state_snapshot', body: zeros(16 * 1024 * 1024 - 8) });
    const record = envelopeRecord(state, ContentType.cbor, { topic: SESSIONS_TOPIC });
    const append = async (payload: Uint8Array): Promise<bigint> =>
      (await log.append({ stream: 'demo', topic: SESSIONS_TOPIC, routing: { key: record.partitionKey }, records: [{ headers: record.headers, payload }] })).baseOffset;
    const unreadableState = await append(record.payload);
    // The same headers over a payload that is no envelope at all.
    const undecodable = await append(zeros(16 * 1024 * 1024 - 8));
    await session.lifecycle.snapshot({ step: 2 });
    await session.lifecycle.end();

    const started = performance.now();
    const info = await factory.reads.get(id);
    // Generous: the bound is about not stalling (seconds per record before), not about speed.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(info?.status).toBe('completed');
    // The scan reports the undecodable record; the fold reports the unreadable state body.
    expect(errors.map((e) => e.context?.['offset']).sort()).toEqual([unreadableState, undecodable].sort());
    for (const error of errors) expect(error.context).toMatchObject({ stream: 'demo', topic: SESSIONS_TOPIC });
    expect(errors.find((e) => e.context?.['offset'] === undecodable)?.message).toMatch(/^skipped an unreadable record at demo\/agent\.sessions \d+:\d+$/);

    errors.length = 0;
    const view = await factory.reads.state(id);
    expect(view.document).toEqual({ step: 2 });
    // The reader kept its fold: the state read continues it and meets nothing new to report.
    expect(errors).toHaveLength(0);
    // A reader of its own (a new process) folds the lane again and reports both again.
    const fresh = sessions(laser, undefined, { onError: (e) => errors.push(e), snapshots: false });
    expect((await fresh.reads.state(id)).document).toEqual({ step: 2 });
    expect(errors).toHaveLength(2);

    // Turn reads: an undecodable record between two instructions on agent.commands.
    errors.length = 0;
    await session.append('instruction', 'first');
    const commands = await log.append({ stream: 'demo', topic: 'agent.commands', routing: { key: record.partitionKey }, records: [{ headers: record.headers, payload: zeros(1_000_000) }] });
    await session.append('instruction', 'second');
    const turns = await session.turns();
    expect(turns.map((t) => new TextDecoder().decode(t.message.payload))).toEqual(['first', 'second']);
    expect(errors.map((e) => e.context)).toEqual([{ stream: 'demo', topic: 'agent.commands', partition: commands.partition, offset: commands.baseOffset, reason: 'codec' }]);
  });

  it('without onError the reads still go on', async () => {
    const { log, laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('quiet');
    await session.lifecycle.begin({ agent });
    const probe = envelopeRecord(AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation: session.conversation, source: agent, operation: 'x', body: new Uint8Array([1]) }), ContentType.cbor, { topic: SESSIONS_TOPIC });
    await log.append({ stream: 'demo', topic: SESSIONS_TOPIC, routing: { key: probe.partitionKey }, records: [{ headers: probe.headers, payload: new Uint8Array([0xff]) }] });
    await session.lifecycle.end();
    expect((await factory.reads.get(session.conversation))?.status).toBe('completed');
    expect(ConversationId.derive('quiet').equals(session.conversation)).toBe(true);
  });
});
