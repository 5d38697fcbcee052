import { Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { decode, harness, text } from './support-runtime/harness.js';

describe('runtime smoke', () => {
  it('answers a command with a correlated response', async () => {
    const { laser } = await harness();
    await using assistant = Agent.builder()
      .id(AgentId.new('assistant'))
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .handler({ handle: (message, ctx) => ctx.respond(text.encode(`handled: ${decode(agentMessageBody(message))}`)) })
      .build()
      .spawn(laser);
    await assistant.ready();
    const conversation = ConversationId.new();
    const request = laser
      .agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation)
      .command(MintUlid.mint(CorrelationId), text.encode('hello'))
      .withTarget('assistant');
    const reply = await laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 });
    expect(decode(agentMessageBody(reply))).toBe('handled: hello');
    expect(reply.envelope?.target?.value).toBe('planner');
    expect(reply.envelope?.cause?.equals(request.recordId)).toBe(true);
  });
});
