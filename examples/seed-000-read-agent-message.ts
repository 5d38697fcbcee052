// Seed 000 (AGDX reference), "Read an agent message", TypeScript: the summarizer handler.
// Only the imports and the client construction differ; the lines after the seed text run the
// handler as an agent and send it one command, so the example shows it answering.
import { AgdxClient, Agent, AgentTopic, type AgentCtx, type AgentMessage, agentMessageBody } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

// --- seed text ---
const summarizer = {
  handle: async (message: AgentMessage, ctx: AgentCtx) => {
    const sender = message.provenance.agent?.asStr() ?? "unknown"
    const tokens = message.provenance.usage?.inputTokens ?? 0n
    const body = agentMessageBody(message)
    await ctx.respond(
      new TextEncoder().encode(`${body.byteLength} bytes from ${sender}, ${tokens} tokens`)
    )
  }
}
// --- end of seed text ---

{
  await using agent = Agent.builder()
    .id(AgentId.new('summarizer'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler(summarizer)
    .build()
    .spawn(laser);
  await agent.ready();

  const request = laser
    .agdx(AgentTopic.Sessions, AgentId.new('planner'), ConversationId.new())
    .command(MintUlid.mint(CorrelationId), new TextEncoder().encode('summarize incident 42'))
    .withTarget(AgentId.new('summarizer'));
  const reply = await laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
  const answer = new TextDecoder().decode(agentMessageBody(reply));
  if (answer !== '21 bytes from planner, 0 tokens') throw new Error(`unexpected answer: ${answer}`);
  console.log(answer);
}
await laser.close();
