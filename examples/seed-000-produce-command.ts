// Seed 000 (AGDX reference), "Produce the same command in every SDK", TypeScript.
// Only the imports and the client construction differ from the seed text.
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

// --- seed text ---
const text = new TextEncoder()
const conversation = ConversationId.new()
const correlation = MintUlid.mint(CorrelationId)

const record = await laser
  .agdx(AgentTopic.Sessions, AgentId.new("planner"), conversation)
  .command(correlation, text.encode("summarize incident 42"))
  .withOperation("summarize")
  .send()
// --- end of seed text ---

console.log(`command ${record.toString()} in conversation ${conversation.toString()}`);
await laser.close();
