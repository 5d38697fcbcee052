// Seed 002 (Interop), "MCP": an McpBridge with one tool, TypeScript.
// Only the imports and the client construction differ from the seed text.
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { McpBridge } from '@agdx/bridge-mcp';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

// --- seed text ---
const mcp = new McpBridge(
  laser,
  AgentId.new("mcp-gateway"),
  AgentTopic.Sessions,
  AgentTopic.Sessions,
  "ops-tools"
).withTool("ask", "ask the assistant", { type: "object" })

const tools = mcp.listTools()
// --- end of seed text ---

if (tools.length !== 1 || tools[0]?.name !== 'ask') throw new Error('expected the one tool "ask"');
console.log(JSON.stringify(tools));
await laser.close();
