/**
 * The settings that route a chunk stream or ride its opening chunk are fixed once the first
 * chunk is written: changed midway, the addressee would split the stream across two places and
 * a deadline would never be published.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, readAgentMessage } from '@agdx/agents';
import { ChunkAssembler, ConversationId, CorrelationId, InvalidError, MintUlid, type ChunkEvent } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { readAll } from './support-client/client.js';

describe('chunk stream settings', () => {
  it('refuses a new addressee after the first chunk, so a topic-per-agent layout keeps the stream in one place', async () => {
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout: { kind: 'perAgentTopic', topics: new Map([['caller', 'inbox.caller']]) } });
    await laser.bootstrap(1);
    const w = laser.agdx(AgentTopic.Sessions, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
    await w.write(new Uint8Array([1]));
    expect(() => w.withTarget('caller')).toThrow(InvalidError);
    expect(() => w.withDeadlineMicros(1_900_000_000_000_000n)).toThrow(InvalidError);
    await w.write(new Uint8Array([2]));
    await w.finish('stop');
    // Every chunk stayed on the lane, where the stream opened; a reader there sees all of it.
    expect(await readAll(laser.transport, 'demo', 'inbox.caller')).toHaveLength(0);
    const assembler = new ChunkAssembler();
    const events: ChunkEvent[] = (await readAll(laser.transport, 'demo', AgentTopic.Sessions)).flatMap((r) =>
      assembler.feed(readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Sessions }).envelope!),
    );
    expect(events.map((e) => e.kind)).toEqual(['body', 'body', 'finished']);
    expect(events.at(-1)).toMatchObject({ synthetic: false, finishReason: 'stop' });
  });

  it('takes the addressee and the deadline before the first chunk', async () => {
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout: { kind: 'perAgentTopic', topics: new Map([['caller', 'inbox.caller']]) } });
    await laser.bootstrap(1);
    const w = laser.agdx(AgentTopic.Sessions, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').withTarget('caller').withDeadlineMicros(1_900_000_000_000_000n);
    await w.write(new Uint8Array([1]));
    await w.finish('stop');
    const records = (await readAll(laser.transport, 'demo', 'inbox.caller')).map((r) => readAgentMessage(r, { stream: 'demo', topic: 'inbox.caller' }).envelope!);
    expect(records.map((e) => [e.sequence, e.target?.value, e.deadlineMicros])).toEqual([
      [0n, 'caller', 1_900_000_000_000_000n],
      [1n, 'caller', undefined],
    ]);
  });
});
