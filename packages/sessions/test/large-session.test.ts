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

describe('a session sharing crowded partitions with other sessions', () => {
  it('replay finds every turn of the session; context sees only the turns within the newest 10,000 records', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const factory = sessions(laser);
    const target = factory.create('needle');
    const others = Array.from({ length: 50 }, (_, i) => encodeProvenanceHeaders({ conversation: factory.create(`hay-${i}`).conversation }));
    const mine = encodeProvenanceHeaders({ conversation: target.conversation });
    const start = await target.checkpoint();
    // 11,000 records on agent.commands partition 0; every 100th is the target's
    let written = 0;
    for (let base = 0; base < 11_000; base += 1000) {
      const records = Array.from({ length: 1000 }, (_, i) => {
        const n = base + i;
        return n % 100 === 0 ? { headers: mine, payload: encoder.encode(`mine ${n}`) } : { headers: others[n % others.length] as typeof mine, payload: encoder.encode(`other ${n}`) };
      });
      await log.append({ stream: 'demo', topic: 'agent.commands', records, routing: { partition: 0 } });
      written += records.length;
    }
    expect(written).toBe(11_000);
    const all = await target.replay(start, [] as string[], (acc, turn) => [...acc, sessionTurnText(turn)]);
    expect(all).toHaveLength(110);
    expect(all[0]).toBe('mine 0');
    const windowed = await target.contextWith(new LastN(1000));
    // the window is offsets [1000, 11000): the target's records at 1000, 1100, ... 10900
    expect(windowed).toHaveLength(100);
    expect(sessionTurnText(windowed[0] as SessionTurn)).toBe('mine 1000');
  });
});
