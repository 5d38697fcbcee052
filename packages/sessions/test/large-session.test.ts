import { describe, expect, it } from 'vitest';
import { CONTEXT_READ_WINDOW, LastN, sessions, sessionTurnText, type SessionTurn } from '@agdx/sessions';
import { encodeProvenanceHeaders } from '@agdx/wire';
import { setup, encoder } from './helpers.js';

describe('a session with more than 10,000 records on its partitions', () => {
  it('replay reads the whole range; context is windowed to the newest 10,000 records per partition', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const session = sessions(laser).create('long-run');
    const conversation = session.conversation;
    const key = conversation.toString();
    const headers = encodeProvenanceHeaders({ conversation });
    const checkpoint = await session.checkpoint();
    const total = 12_500;
    // bulk-append turns in batches (same records `append` writes)
    for (let base = 0; base < total; base += 500) {
      const records = Array.from({ length: 500 }, (_, i) => ({ headers, payload: encoder.encode(`t${base + i}`) }));
      await log.append({ stream: 'demo', topic: 'agent.tool_calls', records, routing: { key } });
    }
    const count = (n: number, turn: SessionTurn): number => (turn.kind === 'tool.call' ? n + 1 : n);
    expect(await session.replay(checkpoint, 0, count)).toBe(total);
    const later = await session.checkpoint();
    expect(await session.stateAt(later, 0, count)).toBe(total);
    const window = await session.contextWith(new LastN(1_000_000));
    expect(window).toHaveLength(CONTEXT_READ_WINDOW);
    expect(sessionTurnText(window[0] as SessionTurn)).toBe(`t${total - CONTEXT_READ_WINDOW}`);
    expect(sessionTurnText(window.at(-1) as SessionTurn)).toBe(`t${total - 1}`);
    const context = await session.context();
    expect(context).toHaveLength(50);
    expect(sessionTurnText(context.at(-1) as SessionTurn)).toBe(`t${total - 1}`);
  });
});
