import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge, type AguiEvent } from '@agdx/agui';
import { ConversationId } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { describe, expect, it } from 'vitest';
import { countingTransport } from './support/counting.js';
import { ANSWER_EVENT_TYPES, writeAnswer } from './support/scenario.js';
import { runRequest, sseBlocks, wholeRun } from './support/server.js';

/** One partition, so every record of the log is on the thread's partition and counts are exact. */
async function setup() {
  const counting = countingTransport();
  const laser = AgdxClient.from(counting.transport, { stream: 'demo' });
  await laser.bootstrap(1);
  const bridge = new AguiBridge(laser);
  const end = async (): Promise<bigint> => (await laser.transport.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions })).partitions[0]?.nextOffset ?? 0n;
  return { counting, laser, bridge, end };
}



describe('the live handler reads what is new', () => {
  it('a POST run reads the thread once, and a later run on the thread reads only the records written since', async () => {
    const { counting, laser, bridge, end } = await setup();
    const conversation = ConversationId.new();
    for (let i = 0; i < 3; i++) await writeAnswer(laser, bridge, ConversationId.new());
    const first = await writeAnswer(laser, bridge, conversation);
    const handler = bridge.handler();

    counting.reset();
    const run = await wholeRun(await handler(runRequest(conversation, first.correlation.toString())));
    expect(run.events.map((e) => e.type)).toEqual(['RUN_STARTED', ...ANSWER_EVENT_TYPES.slice(1)]);
    // one read of the partition, not one to find the turn and another to replay it
    expect(BigInt(counting.count())).toBe(await end());

    const before = await end();
    const second = await writeAnswer(laser, bridge, conversation);
    await writeAnswer(laser, bridge, ConversationId.new());
    counting.reset();
    const again = await wholeRun(await handler(runRequest(conversation, second.correlation.toString())));
    expect(BigInt(counting.count())).toBe((await end()) - before);
    // the whole thread is still shown, then the run of the second turn ends
    expect(again.events.filter((e) => e.type === 'TEXT_MESSAGE_END')).toHaveLength(2);
    expect(again.events.at(-1)?.type).toBe('RUN_FINISHED');

    // aguiEvents shares the handler's kept replay: nothing to read
    counting.reset();
    expect((await bridge.aguiEvents(conversation)).filter((e) => e.type === 'RUN_FINISHED')).toHaveLength(2);
    expect(counting.count()).toBe(0);
  });

  it('a resumed run sends only what follows its Last-Event-ID, from the kept replay', async () => {
    const { counting, laser, bridge } = await setup();
    const conversation = ConversationId.new();
    const first = await writeAnswer(laser, bridge, conversation);
    const handler = bridge.handler();
    const whole = await wholeRun(await handler(runRequest(conversation, first.correlation.toString())));
    expect(whole.lastId).toMatch(/^0:\d+$/);
    const second = await writeAnswer(laser, bridge, conversation);
    counting.reset();
    const resumed = await wholeRun(await handler(runRequest(conversation, second.correlation.toString(), whole.lastId)));
    expect(resumed.events.map((e) => e.type)).toEqual(['RUN_STARTED', ...ANSWER_EVENT_TYPES.slice(1)]);
    // a fresh handler (no kept replay) sends the same for the same id
    const fresh = await wholeRun(await new AguiBridge(laser).handler()(runRequest(conversation, second.correlation.toString(), whole.lastId)));
    expect(resumed.events).toEqual(fresh.events);
    expect(resumed.lastId).toBe(fresh.lastId);
  });

  it('a GET follow continues from the kept replay and goes on with records written while it follows', async () => {
    const { counting, laser, bridge } = await setup();
    const conversation = ConversationId.new();
    await writeAnswer(laser, bridge, conversation);
    await bridge.aguiEvents(conversation);
    const controller = new AbortController();
    counting.reset();
    const response = await bridge.handler({ keepaliveMs: 60_000 })(new Request(`http://h/agui?threadId=${conversation}`, { signal: controller.signal }));
    expect(response.status).toBe(200);
    expect(counting.count()).toBe(0);
    const blocks = sseBlocks(response);
    const seen: AguiEvent[] = [];
    const written = writeAnswer(laser, bridge, conversation);
    for (let guard = 0; guard < 1_000 && seen.filter((e) => e.type === 'RUN_FINISHED').length < 2; guard++) {
      const next = await blocks.next();
      if (next.done === true) break;
      if (next.value.data !== undefined) seen.push(JSON.parse(next.value.data) as AguiEvent);
    }
    await written;
    controller.abort();
    await blocks.return(undefined);
    expect(seen.map((e) => e.type)).toEqual([...ANSWER_EVENT_TYPES, ...ANSWER_EVENT_TYPES]);
  });

  it('a GET follow ends when the thread is read again from its start (its topic was recreated), without mixing two logs', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(1);
    const bridge = new AguiBridge(laser);
    const conversation = ConversationId.new();
    await writeAnswer(laser, bridge, conversation);
    const controller = new AbortController();
    const response = await bridge.handler({ keepaliveMs: 60_000 })(new Request(`http://h/agui?threadId=${conversation}`, { signal: controller.signal }));
    const blocks = sseBlocks(response);
    let seen = 0;
    while (seen < ANSWER_EVENT_TYPES.length) {
      const next = await blocks.next();
      if (next.done === true) throw new Error('ended early');
      if (next.value.data !== undefined) seen++;
    }
    await log.deleteTopic({ stream: 'demo', topic: AgentTopic.Sessions });
    await laser.bootstrap(1);
    // more records than before, so the new log reaches past the followed offsets and wakes the follower
    await writeAnswer(laser, new AguiBridge(laser), conversation);
    await writeAnswer(laser, new AguiBridge(laser), conversation);
    const after: string[] = [];
    for (let guard = 0; guard < 1_000; guard++) {
      const next = await blocks.next();
      if (next.done === true) break;
      if (next.value.data !== undefined) after.push(next.value.data);
    }
    controller.abort();
    expect(after).toEqual([]);
  });
});

