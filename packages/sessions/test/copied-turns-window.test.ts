/**
 * The kept context window holds every copy of a turn and answers each turn once: as the window
 * slides past a turn's first copy, the next copy still in it is the turn, exactly as a read of
 * the whole window answers.
 */
import { CONTEXT_READ_WINDOW, sessions, type PartitionBounds, type Session } from '@agdx/sessions';
import type { LogRecord, MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, encodeProvenanceHeaders, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

/** The open window's slice through a bounds function the window cache does not recognise: an uncached read. */
const wholeWindow: PartitionBounds = (_topic, _partition, tail) => ({ start: tail > BigInt(CONTEXT_READ_WINDOW) ? tail - BigInt(CONTEXT_READ_WINDOW) : 0n, end: tail });

async function filler(log: MemoryLog, topic: string, count: number): Promise<void> {
  const headers = encodeProvenanceHeaders({ conversation: ConversationId.derive('someone-else') });
  for (let left = count; left > 0; left -= 1000) {
    const n = Math.min(1000, left);
    await log.append({ stream: 'demo', topic, routing: { partition: 0 }, records: Array.from({ length: n }, () => ({ headers, payload: new Uint8Array([1]) })) });
  }
}

/** Where each turn of the context is, as `topic@offset`, read through the kept window and uncached. */
async function positions(session: Session): Promise<{ kept: string[]; uncached: string[] }> {
  const kept = (await session.context()).map((t) => `${t.message.topic}@${t.message.id.offset}`);
  const uncached = (await session.scope.read(session.scope.topics, wholeWindow)).map((m) => `${m.topic}@${m.id.offset}`);
  return { kept, uncached };
}

describe('copied turns in the kept context window', () => {
  it('takes the first copy still in the window, on any topic, and agrees with a whole-window read', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const session = sessions(laser).create('window-copies');
    const responses = session.config.topicFor('response');
    const instructions = session.config.topicFor('instruction');
    const answer = AgentEnvelope.response(MintUlid.mint(RecordId), session.conversation, AgentId.new('assistant'), MintUlid.mint(CorrelationId), new TextEncoder().encode('done'));
    await laser.publish(responses, answer, ContentType.raw);
    const [first] = (await log.read({ stream: 'demo', topic: responses, partition: 0, offset: 0n, maxCount: 1 })) as LogRecord[];
    if (first === undefined) throw new Error('the turn was not written');
    const again = (topic: string) => log.append({ stream: 'demo', topic, routing: { partition: 0 }, records: [{ headers: first.headers, payload: first.payload }] });
    expect(await positions(session)).toEqual({ kept: [`${responses}@0`], uncached: [`${responses}@0`] });

    await filler(log, responses, 5_000);
    await again(responses); // offset 5,001
    await again(instructions); // offset 0 of the other topic, later in broker time
    expect(await positions(session)).toEqual({ kept: [`${responses}@0`], uncached: [`${responses}@0`] });

    // the window of the response topic slides past the first copy: the second is the turn
    await filler(log, responses, 5_000);
    expect(await positions(session)).toEqual({ kept: [`${responses}@5001`], uncached: [`${responses}@5001`] });

    // and past the second: the copy on the instruction topic is the turn
    await filler(log, responses, 10_000);
    expect(await positions(session)).toEqual({ kept: [`${instructions}@0`], uncached: [`${instructions}@0`] });
  });
});
