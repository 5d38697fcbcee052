// Seed 004 (Sessions), "Quick example", TypeScript.
// Imports and the client construction differ, plus the one line @agdx/sessions documents:
// the seed's `laser.sessions()` is `sessions(laser)` (AgdxClient cannot depend on sessions).
import { AgdxClient } from '@agdx/agents';
import { Checkpoint, sessions, sessionTurnText } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);

// --- seed text ---
const encoder = new TextEncoder()
const session = sessions(laser).create("agent-42")
await session.append("instruction", encoder.encode("summarize the ticket"))
await session.append("tool.call", encoder.encode("search(ticket=42)"))
await session.append("tool.result", encoder.encode("3 comments found"))
await session.append("model.response", encoder.encode("it is a login bug"))

const turns = await session.context()
for (const turn of turns) {
  console.log(turn.kind, sessionTurnText(turn))
}

const checkpoint = await session.checkpoint()
const saved = JSON.stringify(checkpoint)

await session.append("response", encoder.encode("it is a login bug"))
const later = await session.turnsSince(Checkpoint.fromJSON(saved))
// --- end of seed text ---

if (turns.length !== 4 || later.length !== 1) throw new Error(`expected 4 turns and 1 later turn, got ${turns.length} and ${later.length}`);
console.log(`later: ${later.map((turn) => turn.kind).join(', ')}`);
await laser.close();
