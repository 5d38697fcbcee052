// Seed 002 (Interop), "Address one agent", TypeScript.
// Imports, the client construction and the names the snippet assumes (an A2A `bridge`, an `mcp`
// bridge with the tool "ask", and the assistant agent running) are added around the seed text.
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { McpBridge } from '@agdx/bridge-mcp';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const bridge = new A2aBridge(laser, AgentId.new('a2a-gateway'), AgentTopic.Sessions, AgentTopic.Sessions);
const mcp = new McpBridge(laser, AgentId.new('mcp-gateway'), AgentTopic.Sessions, AgentTopic.Sessions, 'ops-tools').withTool('ask', 'ask the assistant', { type: 'object' });
{
  await using assistant = Agent.builder()
    .id(AgentId.new('assistant'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler((message, ctx) => ctx.respond(new TextEncoder().encode(`handled: ${new TextDecoder().decode(agentMessageBody(message))}`)))
    .build()
    .spawn(laser);
  await assistant.ready();

  // --- seed text ---
  const worker = AgentId.new("assistant")

  const task = await bridge.submit(
    '{"message":{"role":"user","parts":[{"kind":"text","text":"summarize"}]}}',
    { target: worker }
  )
  const result = await mcp.callTool("ask", { question: "status?" }, { target: worker })
  // --- end of seed text ---

  if (result.isError === true) throw new Error('the tool call failed');
  console.log(`task ${task.id}; tool result ${JSON.stringify(result.content)}`);
}
await laser.close();
