/**
 * With a verifier on the client, a tool call over HTTP is answered only by the agent the bridge
 * fronts (or the signers it names); an insider's reply and a reply signed by one agent that speaks
 * as another are refused. Without a reply policy a verified call fails (HandlerConfigError)
 * before anything is published. A child session end that cannot be published reaches the bridge's onError.
 */
import { AgdxClient, Agent, AgentTopic, HandlerConfigError, PublishFailedError, type ActionGovernor } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { ConversationId, TaskState } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';

const text = new TextEncoder();
const STREAM = 'mcp-trust';
const keys = {
  worker: SigningKey.fromBytes(new Uint8Array(32).fill(71)),
  insider: SigningKey.fromBytes(new Uint8Array(32).fill(72)),
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup(governor?: ActionGovernor) {
  const registry = new KeyRegistry();
  registry.enroll('worker', keys.worker);
  registry.enroll('insider', keys.insider);
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry, governor });
  await laser.bootstrap(1);
  // An insider answers first (as itself, then posing as the worker); then the worker answers.
  const agent = Agent.builder()
    .id('worker')
    .listenOn(AgentTopic.ToolCalls)
    .respondOn(AgentTopic.ToolResults)
    .signingKey(keys.worker)
    .heartbeats(false)
    .handler(async (message, ctx) => {
      const envelope = message.envelope!;
      for (const as of ['insider', 'worker']) {
        await laser
          .agdx(AgentTopic.ToolResults, as, envelope.conversation)
          .respond(envelope.correlation!, text.encode(`forged by insider as ${as}`))
          .withTarget(envelope.source)
          .signedBy(keys.insider)
          .send();
      }
      await ctx.respond(text.encode('genuine result'));
    })
    .spawn(laser);
  await agent.ready();
  cleanups.push(() => agent.shutdown());
  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'tools').withTool('ask', 'ask', { type: 'object' }).withTimeout(10_000);
  return { log, laser, bridge };
}

async function callOverHttp(bridge: McpBridge): Promise<{ result?: { content: { text: string }[] }; error?: { code: number } }> {
  const handler = createMcpHttpHandler(bridge);
  const response = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: { q: 'hi' } } }),
    }),
  );
  return (await response.json()) as { result?: { content: { text: string }[] }; error?: { code: number } };
}

describe('MCP tool results bound to the fronted agent', () => {
  it('tools/call over HTTP takes only the fronted agent signed result', async () => {
    const { bridge } = await setup();
    const answer = await callOverHttp(bridge.forAgent('worker'));
    expect(answer.result?.content).toEqual([{ type: 'text', text: 'genuine result' }]);
  });

  it('withReplySigners names other signers; without any policy a verified call fails and publishes nothing', async () => {
    const { log, bridge } = await setup();
    const refused = await callOverHttp(bridge);
    expect(refused.error?.code).toBe(-32000);
    const parent = ConversationId.new();
    await expect(bridge.callToolIn(parent, parent, 'ask', { q: 'child' })).rejects.toBeInstanceOf(HandlerConfigError);
    for (const topic of [AgentTopic.ToolCalls, AgentTopic.Sessions]) {
      const described = await log.describeTopic({ stream: STREAM, topic });
      expect(described.partitions[0]?.nextOffset, topic).toBe(0n);
    }
    // The insider, named on purpose, is accepted, but only when it speaks as itself.
    const named = await callOverHttp(bridge.withReplySigners(['insider']));
    expect(named.result?.content).toEqual([{ type: 'text', text: 'forged by insider as insider' }]);
  });
});

describe('dropped errors reach onError', () => {
  it('a child session end that cannot be published is reported; the call still returns its result', async () => {
    let sessionStatuses = 0;
    // Allows the child's start, refuses its end.
    const governor: ActionGovernor = {
      check: (action) => (action.topic === AgentTopic.Sessions && action.kind === 'status' && ++sessionStatuses > 1 ? { kind: 'deny', reason: 'lane closed' } : { kind: 'allow' }),
    };
    const { bridge } = await setup(governor);
    const reported: unknown[] = [];
    bridge.forAgent('worker').onError((e) => reported.push(e));
    const parent = ConversationId.new();
    const result = await bridge.callToolIn(parent, parent, 'ask', { q: 'child' });
    expect(result.isError).not.toBe(true);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(PublishFailedError);
    expect((reported[0] as PublishFailedError).context).toMatchObject({ state: TaskState.Completed });
    expect(() => bridge.onError('not a function' as never)).toThrow();
  });
});
