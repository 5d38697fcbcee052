// Seed 002 (Interop), "AG-UI", TypeScript.
// Imports and the client construction differ: the seed's `laser.publishStateSnapshot` and
// `laser.aguiEvents` live on @agdx/agui's AguiBridge, so `laser` is the AG-UI surface of a client.
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId } from '@agdx/wire';

const client = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await client.bootstrap(4);
const laser = new AguiBridge(client);

// --- seed text ---
const conversation = ConversationId.new()

await laser.publishStateSnapshot(AgentId.new("ui"), conversation, { count: 0 })

const events = await laser.aguiEvents(conversation, AgentTopic.Sessions)
// --- end of seed text ---

if (events[0]?.type !== 'STATE_SNAPSHOT') throw new Error(`expected a STATE_SNAPSHOT, got ${JSON.stringify(events)}`);
console.log(JSON.stringify(events));
await client.close();
