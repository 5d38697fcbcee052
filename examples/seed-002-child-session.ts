// Seed 002 (Interop), "Run a bridge call as a child session", TypeScript.
// Imports, the client construction and the names the snippet assumes (a held `session`, the
// bridges and a running `worker`) are added. Divergence (examples/README.md): an @agdx/sessions
// Session has no `root` getter, so the held session is given here as `{ conversation, root }`.
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { McpBridge } from '@agdx/bridge-mcp';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentId, type ConversationId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const bridge = new A2aBridge(laser, AgentId.new('a2a-gateway'), AgentTopic.Sessions, AgentTopic.Sessions);
const mcp = new McpBridge(laser, AgentId.new('mcp-gateway'), AgentTopic.Sessions, AgentTopic.Sessions, 'ops-tools').withTool('ask', 'ask the assistant', { type: 'object' });
const worker = AgentId.new('assistant');
const held = sessions(laser).create('ticket-7');
await held.lifecycle.begin({ agent: AgentId.new('planner') });
const session: { readonly conversation: ConversationId; readonly root: ConversationId | undefined } = { conversation: held.conversation, root: undefined };
{
  await using assistant = Agent.builder()
    .id(worker)
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler((message, ctx) => ctx.respond(new TextEncoder().encode(`handled: ${new TextDecoder().decode(agentMessageBody(message))}`)))
    .build()
    .spawn(laser);
  await assistant.ready();

  // --- seed text ---
  const parent = session.conversation
  const root = session.root ?? parent

  const task = await bridge.submitIn(
    parent,
    root,
    '{"message":{"role":"user","parts":[{"kind":"text","text":"summarize"}]}}',
    { target: worker }
  )
  const result = await mcp.callToolIn(parent, root, "ask", { question: "status?" }, { target: worker })
  // --- end of seed text ---

  const links = await sessions(laser).reads.links(parent);
  console.log(`task ${task.id}; tool error: ${result.isError === true}; children of the parent: ${links.children.length}`);
  if (links.children.length < 2) throw new Error('expected the task and the tool call as child sessions');
}
await laser.close();
