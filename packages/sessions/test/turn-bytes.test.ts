/**
 * What the turns a read hands out (and a kept context window holds) keep reachable. A network
 * transport answers a read with records that are views into one reply buffer of up to 1,000
 * records of every conversation; a turn must not pin that whole buffer.
 */
import { describe, expect, it } from 'vitest';
import { AgentTopic } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { encodeProvenanceHeaders, ConversationId } from '@agdx/wire';
import { clientOn } from './support/counting-log.js';
import { replyBufferLog, retainedBytes } from './support/reply-buffer-log.js';

/** The bytes the message itself is made of. */
function ownBytes(m: { readonly payload: Uint8Array; readonly headers: ReadonlyMap<string, { readonly value: Uint8Array }> }): number {
  let n = m.payload.length;
  for (const h of m.headers.values()) n += h.value.length;
  return n;
}

describe('turns keep only their own bytes', () => {
  it('context, turnsSince and memory recall do not pin the read replies their records came in', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(replyBufferLog(log), 1);
    const factory = sessions(laser);
    const session = factory.create('small');
    const memory = session.memory();
    const checkpoint = await session.checkpoint();
    const others = encodeProvenanceHeaders({ conversation: ConversationId.new() });
    for (let i = 0; i < 20; i++) {
      await session.append('instruction', `turn ${i}`);
      await memory.remember(`fact ${i}`);
      // 100 records of 1 KiB of another conversation between two turns, on both topics
      const noise = Array.from({ length: 100 }, () => ({ headers: others, payload: new Uint8Array(1024).fill(7) }));
      await log.append({ stream: 'demo', topic: AgentTopic.Commands, records: noise, routing: { partition: 0 } });
      await log.append({ stream: 'demo', topic: AgentTopic.Memory, records: noise, routing: { partition: 0 } });
    }

    const context = (await session.turns()).map((t) => t.message);
    expect(context).toHaveLength(20);
    const own = context.reduce((n, m) => n + ownBytes(m), 0);
    expect(retainedBytes(context)).toBeLessThanOrEqual(own);

    const since = (await session.turnsSince(checkpoint)).map((t) => t.message);
    expect(since).toHaveLength(20);
    expect(retainedBytes(since)).toBeLessThanOrEqual(own);

    const items = await memory.recall().limit(100).fetch();
    expect(items).toHaveLength(20);
    const bodies = new Set(items.map((i) => i.body.buffer));
    const itemBytes = items.reduce((n, i) => n + i.body.length, 0);
    // each body lies within its own record's bytes (a memory record is a few dozen bytes around its body)
    expect([...bodies].reduce((n, b) => n + b.byteLength, 0)).toBeLessThanOrEqual(itemBytes + 20 * 128);
  });

  it("a read batch made mostly of the conversation's records is kept as it is, holding at most about twice their bytes", async () => {
    const log = new MemoryLog();
    const laser = await clientOn(replyBufferLog(log), 1);
    const session = sessions(laser).create('alone');
    const headers = encodeProvenanceHeaders({ conversation: session.conversation });
    const records = Array.from({ length: 2500 }, (_, i) => ({ headers, payload: new TextEncoder().encode(`turn ${i}`) }));
    await log.append({ stream: 'demo', topic: AgentTopic.Commands, records, routing: { partition: 0 } });
    const turns = (await session.turns()).map((t) => t.message);
    expect(turns).toHaveLength(2500);
    const own = turns.reduce((n, m) => n + ownBytes(m), 0);
    // three read batches (1,000 records each at most): their replies, nothing else
    expect(retainedBytes(turns)).toBeLessThanOrEqual(2 * own + 3 * 1024);
    expect(retainedBytes(turns)).toBeGreaterThanOrEqual(own);
  });
});
