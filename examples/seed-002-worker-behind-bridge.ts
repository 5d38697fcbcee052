// Seed 002 (Interop), "Put a worker behind a bridge", TypeScript.
// Only the imports and the client construction differ; the lines after the seed text send the
// worker one command so the example shows it answering.
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

{
  // --- seed text ---
  const text = new TextEncoder()
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

  await using assistant = Agent.builder()
    .id(AgentId.new("assistant"))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler({
      handle: (message, ctx) =>
        ctx.respond(text.encode(`handled: ${decode(agentMessageBody(message))}`))
    })
    .build()
    .spawn(laser)
  await assistant.ready()
  // --- end of seed text ---

  const request = laser
    .agdx(AgentTopic.Sessions, AgentId.new('bridge'), ConversationId.new())
    .command(MintUlid.mint(CorrelationId), text.encode('summarize'))
    .withTarget(AgentId.new('assistant'));
  const reply = await laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
  const answer = decode(agentMessageBody(reply));
  if (answer !== 'handled: summarize') throw new Error(`unexpected answer: ${answer}`);
  console.log(answer);
}
await laser.close();
