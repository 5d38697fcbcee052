// Seed 004 (Sessions), "Fold and context example", TypeScript.
// Imports, the client construction and the quick example's `session` and `checkpoint` (which
// the seed builds on) are added around the seed text.
import { AgdxClient } from '@agdx/agents';
import { Chain, LastN, sessions, TokenBudget, type SessionTurn } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const encoder = new TextEncoder();
const session = sessions(laser).create('agent-42');
await session.append('instruction', encoder.encode('summarize the ticket'));
await session.append('tool.call', encoder.encode('search(ticket=42)'));
const checkpoint = await session.checkpoint();
await session.append('tool.result', encoder.encode('3 comments found'));
await session.append('tool.call', encoder.encode('fetch(comment=3)'));

// --- seed text ---
const toolCalls = (count: number, turn: SessionTurn) =>
  turn.kind === "tool.call" ? count + 1 : count

const before = await session.stateAt(checkpoint, 0, toolCalls)
const total = await session.replay(checkpoint, before, toolCalls)

const recent = await session.contextWith(
  new Chain([new LastN(5), new TokenBudget(500)])
)
// --- end of seed text ---

if (before !== 1 || total !== 2) throw new Error(`expected 1 tool call before and 2 in total, got ${before} and ${total}`);
console.log(`tool calls before the checkpoint: ${before}, in total: ${total}, recent turns: ${recent.length}`);
await laser.close();
