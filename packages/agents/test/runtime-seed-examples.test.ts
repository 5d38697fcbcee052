// The agent examples of seed 000 (AGDX) and 002 (Interop), with only the imports and the client
// construction changed (`laser` is an AgdxClient over a MemoryLog).
import { Agent, AgentTopic, agentMessageBody, RejectedError, type AgentCtx, type AgentMessage } from '@agdx/agents';
import { follow } from '@agdx/transport';
import {
  AgentEnvelope,
  AgentErrorCode,
  AgentId,
  ConversationId,
  CorrelationId,
  MintUlid,
  reassembleChannel,
  type ChannelRecord,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { harness, STREAM } from './support-runtime/harness.js';
import { seedAssistantAnswersRequest } from './support-runtime/scenarios.js';

describe('seed 002: put a worker behind a bridge', () => {
  it('the assistant answers with a typed response that carries the correlation and is addressed to the requester', () =>
    seedAssistantAnswersRequest(memoryEnv));
});

describe('seed 000: read an agent message', () => {
  it('the summarizer reads provenance and the body and responds', async () => {
    const { laser } = await harness();
    const summarizer = {
      handle: async (message: AgentMessage, ctx: AgentCtx) => {
        const sender = message.provenance.agent?.asStr() ?? 'unknown';
        const tokens = message.provenance.usage?.inputTokens ?? 0n;
        const body = agentMessageBody(message);
        await ctx.respond(new TextEncoder().encode(`${body.byteLength} bytes from ${sender}, ${tokens} tokens`));
      },
    };
    await using agent = Agent.builder().id(AgentId.new('summarizer')).listenOn(AgentTopic.Commands).respondOn(AgentTopic.Responses).handler(summarizer).build().spawn(laser);
    await agent.ready();

    const text = new TextEncoder();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const request = laser
      .agdx(AgentTopic.Commands, AgentId.new('planner'), conversation)
      .command(correlation, text.encode('summarize incident 42'))
      .withOperation('summarize');
    const reply = await laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 5_000 });
    expect(new TextDecoder().decode(agentMessageBody(reply))).toBe('21 bytes from planner, 0 tokens');
  });
});

describe('seed 000: chunk writers, as an agent answer', () => {
  it('streams an answer under the handled correlation, addressed to the requester', async () => {
    const { laser, log } = await harness();
    const text = new TextEncoder();
    await using summarizer = Agent.builder()
      .id(AgentId.new('summarizer'))
      .listenOn(AgentTopic.Commands)
      .respondOn(AgentTopic.Streams)
      .handler(async (_message, ctx) => {
        const stream = ctx.stream('chat').buffered(32, 20);
        await stream.write(text.encode('The incident '));
        await stream.write(text.encode('is resolved.'));
        await stream.finish('stop');
      })
      .spawn(laser);
    await summarizer.ready();

    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const stop = new AbortController();
    const partition = (await log.describeTopic({ stream: STREAM, topic: AgentTopic.Streams })).partitions[0]!.partition;
    const chunks: AgentEnvelope[] = [];
    const reading = (async () => {
      for await (const record of follow(log, { stream: STREAM, topic: AgentTopic.Streams, partition, waitMs: 50, signal: stop.signal })) {
        const envelope = AgentEnvelope.decode(record.payload);
        if (envelope.kind === 'chunk' && envelope.correlation?.equals(correlation)) chunks.push(envelope);
        if (envelope.last) break;
      }
    })();
    const request = await laser.agdx(AgentTopic.Commands, AgentId.new('planner'), conversation).command(correlation, text.encode('summarize')).send();
    await reading;
    stop.abort();
    const channel = chunks[0]!.channel!;
    const result = reassembleChannel(chunks as ChannelRecord[], conversation, channel);
    expect(new TextDecoder().decode(result.payload)).toBe('The incident is resolved.');
    expect(result.finished).toBe(true);
    expect(chunks.every((c) => c.target?.value === 'planner')).toBe(true);
    expect(chunks[0]!.operation).toBe('chat');
    // Like every other answer, the stream names the request it answers and where it lies.
    expect(chunks.every((c) => request !== undefined && c.cause?.equals(request))).toBe(true);
    expect(chunks.every((c) => c.causeAt?.topicId !== undefined)).toBe(true);
  });
});

describe('seed 002: pause for a human decision', () => {
  const approver = {
    handle: (_message: AgentMessage, ctx: AgentCtx) => ctx.respondInput(AgentTopic.Sessions, new TextEncoder().encode('approved')),
  };

  it('requestInput named to the approver returns its decision', async () => {
    const { laser } = await harness();
    await using agent = Agent.builder().id(AgentId.new('approver')).listenOn(AgentTopic.Sessions).handler(approver).spawn(laser);
    await agent.ready();
    const conversation = ConversationId.new();
    const decision = await laser
      .agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), conversation)
      .requestInput(AgentTopic.Sessions, new TextEncoder().encode('restart the metrics service on node-7?'), 300_000, { target: AgentId.new('approver') });
    expect(new TextDecoder().decode(decision)).toBe('approved');
  });

  it('ctx.approvalGate inside a handler waits for the approver and returns the decision body', async () => {
    const { laser } = await harness();
    const text = new TextEncoder();
    await using approverAgent = Agent.builder().id(AgentId.new('approver')).listenOn(AgentTopic.Sessions).handler(approver).spawn(laser);
    await using orchestrator = Agent.builder()
      .id(AgentId.new('orchestrator'))
      .listenOn(AgentTopic.Commands)
      .respondOn(AgentTopic.Responses)
      .handler(async (_message, ctx) => {
        const decision = await ctx.approvalGate(AgentTopic.Sessions, text.encode('restart the metrics service on node-7?'), 5_000);
        await ctx.respond(decision);
      })
      .spawn(laser);
    await Promise.all([approverAgent.ready(), orchestrator.ready()]);
    const request = laser.agdx(AgentTopic.Commands, AgentId.new('operator'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('restart?'));
    const reply = await laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 5_000 });
    expect(new TextDecoder().decode(agentMessageBody(reply))).toBe('approved');
  });

  it('an approver that fails the request makes the gate throw RejectedError', async () => {
    const { laser } = await harness();
    await using refuser = Agent.builder()
      .id(AgentId.new('approver'))
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .handler((_m, ctx) => ctx.fail({ code: AgentErrorCode.Unauthorized, message: 'not today', retryable: false }))
      .spawn(laser);
    await refuser.ready();
    const gate = laser
      .agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), ConversationId.new())
      .requestInput(AgentTopic.Sessions, new TextEncoder().encode('deploy?'), 5_000, { target: 'approver' });
    await expect(gate).rejects.toBeInstanceOf(RejectedError);
    await expect(gate).rejects.toThrow('not today');
  });
});
