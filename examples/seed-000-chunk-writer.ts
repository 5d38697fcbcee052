// Seed 000 (AGDX reference), "Chunk writers", TypeScript.
// Only the imports and the client construction (with the names the snippet assumes) are added.
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const text = new TextEncoder();
const conversation = ConversationId.new();
const correlation = MintUlid.mint(CorrelationId);

// --- seed text ---
const stream = laser
  .agdx(AgentTopic.Streams, AgentId.new("summarizer"), conversation)
  .stream(correlation, "chat")
  .buffered(32, 20)

await stream.write(text.encode("The incident "))
await stream.write(text.encode("is resolved."))
await stream.finish("stop")
// --- end of seed text ---

const topic = await laser.transport.describeTopic({ stream: 'demo', topic: AgentTopic.Streams });
const records = topic.partitions.reduce((sum, p) => sum + Number(p.nextOffset), 0);
console.log(`${records} chunk records on ${AgentTopic.Streams}`);
await laser.close();
