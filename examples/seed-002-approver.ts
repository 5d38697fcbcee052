// Seed 002 (Interop), "Pause for a human decision": the approver handler, TypeScript.
// Imports and the client construction are added; the lines after the seed text run the handler
// as an agent and ask it for a decision.
import { AgdxClient, Agent, AgentTopic, type AgentCtx, type AgentMessage } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

// --- seed text ---
const approver = {
  handle: (_message: AgentMessage, ctx: AgentCtx) =>
    ctx.respondInput(AgentTopic.Sessions, new TextEncoder().encode("approved"))
}
// --- end of seed text ---

{
  await using agent = Agent.builder().id(AgentId.new('approver')).listenOn(AgentTopic.Sessions).handler(approver).build().spawn(laser);
  await agent.ready();
  const decision = await laser
    .agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), ConversationId.new())
    .requestInput(AgentTopic.Sessions, new TextEncoder().encode('restart node-7?'), 10_000, { target: AgentId.new('approver') });
  console.log(`decision: ${new TextDecoder().decode(decision)}`);
}
await laser.close();
