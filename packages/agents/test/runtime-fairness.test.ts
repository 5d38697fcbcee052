/**
 * On the in-process log every read and append settles as a microtask. An agent with an endless
 * supply of work must still let the event loop turn, or timers (reply timeouts, heartbeats,
 * linger flushes) would never fire.
 */
import { describe, expect, it } from 'vitest';
import { Agent, AgdxClient, AgentTopic } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';

describe('a busy agent on MemoryLog', () => {
  it('lets timers fire while it never runs out of work', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'fair' });
    await laser.bootstrap(1);
    const me = AgentId.new('looper');
    let handled = 0;
    // Each handled command sends the next one: the agent always has work waiting.
    const agent = Agent.builder()
      .id(me)
      .listenOn(AgentTopic.Commands)
      .handler(async (message) => {
        handled += 1;
        await laser.agdx(AgentTopic.Commands, me, message.envelope!.conversation).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).send();
      })
      .spawn(laser);
    await agent.ready();
    await laser.agdx(AgentTopic.Commands, me, ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).send();
    let ticks = 0;
    const interval = setInterval(() => (ticks += 1), 5);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clearInterval(interval);
    await agent.abort();
    await laser.close();
    expect(handled).toBeGreaterThan(10);
    expect(ticks).toBeGreaterThan(3);
  }, 20_000);
});
