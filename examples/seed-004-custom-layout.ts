// Seed 004 (Sessions), "Custom layout example", TypeScript.
// Imports and the client construction differ, plus the documented `sessions(laser, config)` for
// the seed's `laser.sessions(config)`. The custom topics are created first, as the seed's
// "Running it" says.
import { AgdxClient } from '@agdx/agents';
import { SessionConfig, sessions as sessionsOf, sessionTurnText } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';

const log = new MemoryLog();
const laser = AgdxClient.from(log, { stream: 'demo' });
await log.ensureStream('support');
for (const topic of ['support.turns', 'support.replies']) await log.ensureTopic({ stream: 'support', topic }, { partitions: 2 });

// --- seed text ---
const sessions = sessionsOf(laser,
  new SessionConfig()
    .stream("support")
    .topic("instruction", "support.turns")
    .topic("response", "support.replies")
    .memoryNamespace("support.sessions")
    .contextTurns(10)
    .contextTokens(800)
)
const session = sessions.create("ticket-7")
// --- end of seed text ---

await session.append('instruction', new TextEncoder().encode('reset my password'));
await session.append('response', new TextEncoder().encode('done'));
const turns = await session.context();
if (turns.length !== 2) throw new Error(`expected 2 turns, got ${turns.length}`);
console.log(turns.map((turn) => `${turn.kind}: ${sessionTurnText(turn)}`).join('\n'));
await laser.close();
