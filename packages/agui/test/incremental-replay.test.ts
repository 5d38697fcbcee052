import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { ConversationId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { countingTransport } from './support/counting.js';
import { ANSWER_EVENT_TYPES, writeAnswer } from './support/scenario.js';

async function clientOn(transport: LogTransport): Promise<AgdxClient> {
  const laser = AgdxClient.from(transport, { stream: 'demo' });
  await laser.bootstrap(4);
  return laser;
}

describe('AguiBridge.aguiEvents incremental replay', () => {
  it('answers every repeated call exactly as a fresh bridge does, including the new records', async () => {
    const laser = await clientOn(new MemoryLog());
    const kept = new AguiBridge(laser);
    const conversation = ConversationId.new();
    const other = ConversationId.new();
    let calls = 0;
    await writeAnswer(laser, new AguiBridge(laser), conversation, async () => {
      calls += 1;
      // another conversation's records interleave on the log and must stay out
      if (calls % 3 === 0) await writeAnswer(laser, new AguiBridge(laser), other);
      expect(await kept.aguiEvents(conversation)).toEqual(await new AguiBridge(laser).aguiEvents(conversation));
    });
    const events = await kept.aguiEvents(conversation);
    expect(events.map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
    expect(events).toEqual(await new AguiBridge(laser).aguiEvents(conversation));
    expect(await kept.aguiEvents(other)).toEqual(await new AguiBridge(laser).aguiEvents(other));
  });

  it('returns a copy: changing a returned list does not change the next answer', async () => {
    const laser = await clientOn(new MemoryLog());
    const bridge = new AguiBridge(laser);
    const { conversation } = await writeAnswer(laser, bridge);
    const first = await bridge.aguiEvents(conversation);
    first.length = 0;
    expect((await bridge.aguiEvents(conversation)).map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
  });

  it('reads only the records written since the last call', async () => {
    const counting = countingTransport(new MemoryLog());
    const laser = await clientOn(counting.transport);
    const bridge = new AguiBridge(laser);
    const { conversation } = await writeAnswer(laser, bridge);
    const before = counting.count();
    const first = await bridge.aguiEvents(conversation);
    const firstRead = counting.count() - before;
    expect(firstRead).toBeGreaterThan(10);

    counting.reset();
    expect(await bridge.aguiEvents(conversation)).toEqual(first);
    expect(counting.count()).toBe(0);

    await bridge.publishStateDelta('ui', conversation, [{ op: 'add', path: '/extra', value: true }]);
    counting.reset();
    const next = await bridge.aguiEvents(conversation);
    expect(counting.count()).toBe(1);
    expect(next.slice(0, first.length)).toEqual(first);
    expect(next.length).toBeGreaterThan(first.length);
    expect(next).toEqual(await new AguiBridge(laser).aguiEvents(conversation));
  });

  it('keeps at most 256 conversations and drops the least recently asked', async () => {
    const counting = countingTransport(new MemoryLog());
    const laser = await clientOn(counting.transport);
    const bridge = new AguiBridge(laser);
    const { conversation } = await writeAnswer(laser, bridge);
    const first = await bridge.aguiEvents(conversation);
    const others = Array.from({ length: 256 }, () => ConversationId.new());
    for (const other of others.slice(0, 255)) expect(await bridge.aguiEvents(other)).toEqual([]);
    counting.reset();
    expect(await bridge.aguiEvents(conversation)).toEqual(first);
    expect(counting.count()).toBe(0);
    for (const other of others) await bridge.aguiEvents(other);
    counting.reset();
    expect(await bridge.aguiEvents(conversation)).toEqual(first);
    expect(counting.count()).toBeGreaterThan(10);
  });

  it('serves concurrent calls without converting a record twice', async () => {
    const laser = await clientOn(new MemoryLog());
    const bridge = new AguiBridge(laser);
    const { conversation } = await writeAnswer(laser, bridge);
    const answers = await Promise.all([bridge.aguiEvents(conversation), bridge.aguiEvents(conversation), bridge.aguiEvents(conversation)]);
    for (const answer of answers) expect(answer.map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
  });

  it('starts over on a recreated topic and gives the new log events, not the stale ones', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const bridge = new AguiBridge(laser);
    const conversation = ConversationId.new();
    await writeAnswer(laser, bridge, conversation);
    await writeAnswer(laser, bridge, conversation);
    expect((await bridge.aguiEvents(conversation)).length).toBe(2 * ANSWER_EVENT_TYPES.length);

    await log.deleteTopic({ stream: 'demo', topic: AgentTopic.Sessions });
    await laser.bootstrap(4);
    expect(await bridge.aguiEvents(conversation)).toEqual([]);
    await writeAnswer(laser, bridge, conversation);
    const events = await bridge.aguiEvents(conversation);
    expect(events.map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
    expect(events).toEqual(await new AguiBridge(laser).aguiEvents(conversation));
  });

  it('starts over when the partition count changes the addresses', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const bridge = new AguiBridge(laser);
    const conversation = ConversationId.new();
    await writeAnswer(laser, bridge, conversation);
    expect((await bridge.aguiEvents(conversation)).length).toBe(ANSWER_EVENT_TYPES.length);

    await log.deleteTopic({ stream: 'demo', topic: AgentTopic.Sessions });
    await log.ensureTopic({ stream: 'demo', topic: AgentTopic.Sessions }, { partitions: 7 });
    // a new writer: the old bridge's session writer refuses a lane whose partition count changed
    await writeAnswer(laser, new AguiBridge(laser), conversation);
    const events = await bridge.aguiEvents(conversation);
    expect(events.map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
    expect(events).toEqual(await new AguiBridge(laser).aguiEvents(conversation));
  });
});
