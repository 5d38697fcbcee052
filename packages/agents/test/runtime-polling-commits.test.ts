/**
 * Commits on a log whose waits poll (Iggy): there each commit costs requests of its own, so an
 * agent answering one record at a time commits a quiet stretch once, a moment later, instead of
 * once per record, and never holds the next record behind a commit; stop() commits at once.
 */
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import type { AppendRequest, GroupMember, JoinGroupRequest, LogTransport, MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { harness, STREAM, text } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';

/** `log` as an Iggy-like transport: waits poll, and every group commit is counted. */
function pollingLog(log: MemoryLog): { transport: LogTransport; commits: bigint[] } {
  const commits: bigint[] = [];
  const joinGroup = async (request: JoinGroupRequest): Promise<GroupMember> => {
    const member = await log.joinGroup(request);
    const commit = (partition: number, offset: bigint, options?: { signal?: AbortSignal }): Promise<void> => {
      if (request.topic === AgentTopic.Sessions) commits.push(offset);
      return member.commit(partition, offset, options);
    };
    return overriding(member, { commit });
  };
  const transport: LogTransport = overriding(log, { waitsByPolling: true, joinGroup });
  return { transport, commits };
}

describe('commits on a polling log', () => {
  it('answers records one at a time with fewer commits than records, and stop() commits the last one', async () => {
    const h = await harness();
    const polling = pollingLog(h.log);
    const agentClient = AgdxClient.from(polling.transport, { stream: STREAM });
    const agent = Agent.builder()
      .id('echo')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Responses)
      .heartbeats(false)
      .followControl(false)
      .pollInterval(50)
      .handler((message, ctx) => ctx.respond(message.envelope?.body ?? new Uint8Array()))
      .spawn(agentClient);
    await agent.ready();
    const requests = 12;
    for (let i = 0; i < requests; i++) {
      const request = h.laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode(`q${i}`)).withTarget('echo');
      await h.laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 10_000 });
    }
    await agent.shutdown();
    // Every record was answered, yet the records of a quick run share their commits.
    expect(polling.commits.length).toBeGreaterThan(0);
    expect(polling.commits.length).toBeLessThan(requests);
    expect(polling.commits.at(-1)).toBe(BigInt(requests - 1));
    const stored = await h.log.getOffset({ stream: STREAM, topic: AgentTopic.Sessions, partition: 0, consumer: { kind: 'group', name: 'echo' } });
    expect(stored).toBe(BigInt(requests - 1));
    await agentClient.close();
    await h.laser.close();
  });

  it('sends a handler\'s streamed answer (chunks, finish, response) as one append per request', async () => {
    const h = await harness();
    const appends: number[] = [];
    const append = (request: AppendRequest) => {
      if (request.topic === AgentTopic.Responses) appends.push(request.records.length);
      return h.log.append(request);
    };
    const agentClient = AgdxClient.from(overriding(h.log, { waitsByPolling: true, append }), { stream: STREAM });
    const chunks = 16;
    const agent = Agent.builder()
      .id('streamer')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Responses)
      .heartbeats(false)
      .followControl(false)
      .pollInterval(50)
      .handler(async (_message, ctx) => {
        const writer = ctx.stream('chat');
        for (let c = 0; c < chunks; c++) await writer.write(text.encode(`token ${c} `));
        await writer.finish('stop');
        await ctx.respond(text.encode('done'));
      })
      .spawn(agentClient);
    await agent.ready();
    const requests = 4;
    for (let i = 0; i < requests; i++) {
      const request = h.laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode(`q${i}`)).withTarget('streamer');
      const reply = await h.laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 10_000 });
      expect(new TextDecoder().decode(reply.envelope?.body)).toBe('done');
    }
    await agent.shutdown();
    // 16 chunks, the finish and the response of each answer left together.
    expect(appends).toEqual(Array.from({ length: requests }, () => chunks + 2));
    await agentClient.close();
    await h.laser.close();
  });
});
