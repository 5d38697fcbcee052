import { Agent, agentMessageBody, AgentTopic, type StreamLayout } from '@agdx/agents';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { harness } from './support-runtime/harness.js';

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
