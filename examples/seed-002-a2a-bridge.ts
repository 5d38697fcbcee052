// Seed 002 (Interop), "A2A": an A2aBridge and its Agent Card, TypeScript.
// Only the imports and the client construction differ from the seed text.
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

// --- seed text ---
const bridge = new A2aBridge(
  laser,
  AgentId.new("a2a-gateway"),
  AgentTopic.Sessions,
  AgentTopic.Sessions
)
const card = bridge.card()
// --- end of seed text ---

if (card.name !== 'a2a-gateway') throw new Error(`unexpected card name ${card.name}`);
console.log(JSON.stringify(card, null, 2));
await laser.close();
