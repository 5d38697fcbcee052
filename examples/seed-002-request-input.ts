// Seed 002 (Interop), "Pause for a human decision": requestInput, TypeScript.
// Imports, the client construction and an approver agent that answers (the seed's next snippet)
// are added around the seed text.
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const conversation = ConversationId.new();
{
  await using approver = Agent.builder()
    .id(AgentId.new('approver'))
    .listenOn(AgentTopic.Sessions)
    .handler((_message, ctx) => ctx.respondInput(AgentTopic.Sessions, new TextEncoder().encode('approved')))
    .build()
    .spawn(laser);
  await approver.ready();

  // --- seed text ---
  const decision = await laser
    .agdx(AgentTopic.Sessions, AgentId.new("orchestrator"), conversation)
    .requestInput(
      AgentTopic.Sessions,
      new TextEncoder().encode("restart the metrics service on node-7?"),
      300_000,
      { target: AgentId.new("approver") }
    )
  // --- end of seed text ---

  const answer = new TextDecoder().decode(decision);
  if (answer !== 'approved') throw new Error(`unexpected decision ${answer}`);
  console.log(`decision: ${answer}`);
}
await laser.close();
