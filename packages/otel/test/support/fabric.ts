/**
 * The demo's shape (planner → worker → approver) on one client: the planner delegates to the
 * worker with a request, the worker streams reasoning, answers a tool call, asks the approver
 * for a human decision, streams a chat answer with token usage and responds.
 */
import { Agent, AgentTopic, agentMessageBody, type AgdxClient, type AgentHandle } from '@agdx/agents';
import { AgentId, CorrelationId, MintUlid } from '@agdx/wire';

const text = new TextEncoder();

export const Agents = { planner: AgentId.new('planner'), worker: AgentId.new('worker'), approver: AgentId.new('approver'), operator: AgentId.new('operator') };

/** One of the fabric's agents. */
export type Role = 'worker' | 'planner' | 'approver';

/** Spawns the agents named in `roles` (default all three) and waits until they are ready. */
export async function spawnFabric(client: AgdxClient, roles: readonly Role[] = ['worker', 'planner', 'approver']): Promise<AgentHandle[]> {
  const common = (id: AgentId, listen: string) => Agent.builder().id(id).listenOn(listen).retry({ maxAttempts: 1, baseDelayMs: 10 }).heartbeats(false).pollInterval(5);
  const spawned: AgentHandle[] = [];
  if (roles.includes('worker')) spawned.push(common(Agents.worker, AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .serves(['summarize'])
    .handler({
      handle: async (message, ctx) => {
        const reasoning = ctx.stream('reasoning');
        await reasoning.write(text.encode('thinking'));
        await reasoning.finish('stop');
        const call = MintUlid.mint(CorrelationId);
        await ctx.client.agdx(AgentTopic.Sessions, ctx.agentId, ctx.conversation).respond(call, text.encode('{"hits":3}')).withTool('search_incidents').send();
        const decision = await ctx.client
          .agdx(AgentTopic.HumanInput, ctx.agentId, ctx.conversation)
          .requestInput(AgentTopic.HumanInput, text.encode('publish?'), 20_000, { target: Agents.approver });
        const chat = ctx.stream('chat');
        await chat.write(text.encode('done: '));
        await chat.finish('stop', { inputTokens: 12n, outputTokens: 5n });
        await ctx.respond(new Uint8Array([...text.encode('summary, '), ...decision]));
      },
    })
    .build()
    .spawn(client));
  if (roles.includes('planner')) spawned.push(common(Agents.planner, AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .serves(['plan'])
    .handler({
      handle: async (message, ctx) => {
        const ask = ctx.client
          .agdx(AgentTopic.Sessions, ctx.agentId, ctx.conversation)
          .command(MintUlid.mint(CorrelationId), agentMessageBody(message))
          .withOperation('summarize')
          .withTarget(Agents.worker);
        const reply = await ctx.client.request(ask, { replyTopic: AgentTopic.Sessions, timeoutMs: 20_000 });
        await ctx.respond(agentMessageBody(reply));
      },
    })
    .build()
    .spawn(client));
  if (roles.includes('approver')) spawned.push(common(Agents.approver, AgentTopic.HumanInput)
    .handler({
      handle: async (message, ctx) => {
        if (message.envelope?.kind !== 'command' || message.envelope.correlation === undefined) return;
        await ctx.respondInput(AgentTopic.HumanInput, text.encode('approved'));
      },
    })
    .build()
    .spawn(client));
  await Promise.all(spawned.map((h) => h.ready()));
  return spawned;
}

/** The operator asks the planner to plan; resolves with the planner's answer text. */
export async function askPlanner(client: AgdxClient, conversation: import('@agdx/wire').ConversationId): Promise<string> {
  const ask = client
    .agdx(AgentTopic.Sessions, Agents.operator, conversation)
    .command(MintUlid.mint(CorrelationId), text.encode('incident 42'))
    .withOperation('plan')
    .withTarget(Agents.planner);
  const reply = await client.request(ask, { replyTopic: AgentTopic.Sessions, timeoutMs: 20_000 });
  return new TextDecoder().decode(agentMessageBody(reply));
}
