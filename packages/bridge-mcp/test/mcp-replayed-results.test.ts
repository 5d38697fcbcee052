/**
 * A copy of a genuinely signed tool result, appended again to the result topic by someone who
 * holds no key while a later call waits: every call has a fresh conversation and correlation,
 * both covered by the signature, so the copy answers nothing and the later call gets its own
 * result. The README's "What a signature does not cover" relies on this.
 */
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import { McpBridge } from '@agdx/bridge-mcp';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog, type LogRecord } from '@agdx/transport';
import { AgentEnvelope } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';

const text = new TextEncoder();
const STREAM = 'mcp-replayed';
const workerKey = SigningKey.fromBytes(new Uint8Array(32).fill(73));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('MCP tool calls and copies of signed results', () => {
  it('a copy of the first call’s signed result does not answer the second call', async () => {
    const registry = new KeyRegistry();
    registry.enroll('worker', workerKey);
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry });
    await laser.bootstrap(1);
    const results = async (): Promise<LogRecord[]> =>
      (await log.read({ stream: STREAM, topic: AgentTopic.ToolResults, partition: 0, offset: 0n, maxCount: 100 })).filter((r) => AgentEnvelope.decode(r.payload).kind === 'response');
    let calls = 0;
    const agent = Agent.builder()
      .id('worker')
      .listenOn(AgentTopic.ToolCalls)
      .respondOn(AgentTopic.ToolResults)
      .signingKey(workerKey)
      .heartbeats(false)
      .handler(async (_message, ctx) => {
        calls += 1;
        if (calls === 2) {
          // The intruder's move, timed to land while the second call waits.
          const [first] = await results();
          await log.append({ stream: STREAM, topic: AgentTopic.ToolResults, records: [{ headers: first!.headers, payload: first!.payload }] });
        }
        await ctx.respond(text.encode(`result ${calls}`));
      })
      .spawn(laser);
    await agent.ready();
    cleanups.push(() => agent.shutdown());
    const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'tools').withTool('ask', 'ask', { type: 'object' }).withTimeout(10_000).forAgent('worker');
    expect((await bridge.callTool('ask', { q: 'one' })).content).toEqual([{ kind: 'text', text: 'result 1' }]);
    expect((await bridge.callTool('ask', { q: 'two' })).content).toEqual([{ kind: 'text', text: 'result 2' }]);
    expect(await results()).toHaveLength(3);
  });
});
