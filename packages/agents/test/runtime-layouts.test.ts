import { Agent, agentMessageBody, AgentTopic, LayoutMismatchError, type AgentHandler, type StreamLayout } from '@agdx/agents';
import { partitionForKey } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { harness } from './support-runtime/harness.js';
import { partitionAgentGroupSharesItsPartition } from './support-runtime/scenarios.js';

const text = new TextEncoder();
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const assistant = AgentId.new('assistant');
const gateway = AgentId.new('a2a-gateway');

const LAYOUTS: [string, StreamLayout][] = [
  ['shared', { kind: 'shared' }],
  ['perAgentTopic', { kind: 'perAgentTopic', topics: new Map([[assistant.value, 'agent.assistant'], [gateway.value, 'agent.gateway']]) }],
  ['perAgentPartition', { kind: 'perAgentPartition', partitions: new Map([[assistant.value, 1], [gateway.value, 2]]) }],
  ['singlePartition', { kind: 'singlePartition' }],
];

describe.each(LAYOUTS)('seed 002 request round trip under the %s layout', (_name, layout) => {
  it('the assistant answers a request addressed to it, and the reply reaches the requester', async () => {
    const h = await harness(4, { layout });
    await using agent = Agent.builder()
      .id(assistant)
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .handler({ handle: (message, ctx) => ctx.respond(text.encode(`handled: ${decode(agentMessageBody(message))}`)) })
      .build()
      .spawn(h.connect());
    await agent.ready();
    for (let i = 0; i < 3; i++) {
      const correlation = MintUlid.mint(CorrelationId);
      const request = h.laser.agdx(AgentTopic.Sessions, gateway, ConversationId.new()).command(correlation, text.encode(`summarize ${i}`)).withTarget(assistant);
      const reply = await h.laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 });
      expect(decode(agentMessageBody(reply))).toBe(`handled: summarize ${i}`);
      expect(reply.envelope?.correlation?.equals(correlation)).toBe(true);
      expect(reply.envelope?.target?.value).toBe(gateway.value);
    }
  });
});

describe('an agent of a partition-per-agent layout', () => {
  const layout: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([[assistant.value, 1], [gateway.value, 2]]) };
  const echo = (tag: string, counts: Map<string, number>): AgentHandler => ({
    handle: async (message, ctx) => {
      counts.set(tag, (counts.get(tag) ?? 0) + 1);
      await ctx.respond(text.encode(`${tag}: ${decode(agentMessageBody(message))}`));
    },
  });

  it('reads and commits only its own partition', async () => {
    const h = await harness(4, { layout });
    const counts = new Map<string, number>();
    await using agent = Agent.builder().id(assistant).listenOn(AgentTopic.Sessions).respondOn(AgentTopic.Sessions).handler(echo('a', counts)).build().spawn(h.connect());
    await agent.ready();
    // a command for an undeclared agent stays on its session's partition: not the assistant's work
    let onMine = 0;
    for (let i = 0; i < 8; i++) {
      const session = ConversationId.new();
      if ((await partitionForKey(session.toString(), 4)) === 1) onMine++;
      await h.laser.agdx(AgentTopic.Sessions, gateway, session).command(MintUlid.mint(CorrelationId), text.encode('x')).withTarget('someone-else').send();
    }
    const request = h.laser.agdx(AgentTopic.Sessions, gateway, ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('mine')).withTarget(assistant);
    const reply = await h.laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 });
    expect(decode(agentMessageBody(reply))).toBe('a: mine');
    await agent.shutdown();
    expect(agent.stats.handled).toBe(1);
    // only the commands keyed onto partition 1 pass before the assistant (and are skipped there)
    expect(agent.stats.skipped).toBe(onMine);
    for (const partition of [0, 1, 2, 3]) {
      const stored = await h.log.getOffset({ stream: 'runtime-test', topic: AgentTopic.Sessions, partition, consumer: { kind: 'group', name: assistant.value } });
      if (partition === 1) expect(stored).toBeDefined();
      else expect(stored).toBeUndefined();
    }
  });

  it('instances in one consumer group share the work: each request handled once, and another instance takes over', () =>
    partitionAgentGroupSharesItsPartition(memoryEnv));

  it('refuses a declared partition the topic does not have, with LayoutMismatchError', async () => {
    const h = await harness(2, { layout });
    const agent = Agent.builder().id(gateway).listenOn(AgentTopic.Sessions).handler({ handle: () => undefined }).build().spawn(h.connect());
    const failure = await agent.ready().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(LayoutMismatchError);
    expect((failure as LayoutMismatchError).kind).toBe('layout-mismatch');
    expect((failure as LayoutMismatchError).context).toMatchObject({ agent: gateway.value, partition: 2, partitionCount: 2 });
    await agent.shutdown().catch(() => undefined);
  });
});

describe('an agent of a topic-per-agent layout', () => {
  it('refuses a declared topic the stream does not have, with LayoutMismatchError', async () => {
    const h = await harness(2);
    const layout: StreamLayout = { kind: 'perAgentTopic', topics: new Map([[assistant.value, 'agent.assistant']]) };
    const agent = Agent.builder().id(assistant).listenOn(AgentTopic.Sessions).handler({ handle: () => undefined }).build().spawn(h.connect({ layout }));
    const failure = await agent.ready().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(LayoutMismatchError);
    expect((failure as LayoutMismatchError).context).toMatchObject({ topic: 'agent.assistant', agent: assistant.value });
    await agent.shutdown().catch(() => undefined);
  });
});
