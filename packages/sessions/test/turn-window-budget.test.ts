/**
 * What the kept context windows of one sessions factory may hold. Without a bound, 64 kept
 * conversations of six topics could hold 64 × 6 × 10,000 = 3,840,000 turns (about 700 bytes of
 * heap each, besides their bytes).
 */
import { describe, expect, it } from 'vitest';
import { AgentTopic } from '@agdx/agents';
import { MAX_CACHED_TURN_BYTES, MAX_CACHED_TURNS, sessions, type Session } from '@agdx/sessions';
import { MemoryLog, partitionForKey } from '@agdx/transport';
import { encodeProvenanceHeaders } from '@agdx/wire';
import { clientOn, countingLog } from './support/counting-log.js';

/**
 * Appends `count` turns of `size` bytes for `session` on `topic`, by hand, keyed by the
 * conversation as `append` keys them, in batches of at most 1,000 records and 16 MiB (a transport
 * refuses a batch over MAX_BATCH_BYTES).
 */
async function fill(log: MemoryLog, session: Session, topic: string, count: number, size: number): Promise<void> {
  const headers = encodeProvenanceHeaders({ conversation: session.conversation });
  const perBatch = Math.max(1, Math.min(1000, Math.floor((16 * 1024 * 1024) / size)));
  for (let done = 0; done < count; ) {
    const n = Math.min(perBatch, count - done);
    const records = Array.from({ length: n }, (_, i) => ({ headers, payload: new Uint8Array(size).fill((done + i) % 251) }));
    await log.append({ stream: 'demo', topic, records, routing: { key: session.conversation.toString() } });
    done += n;
  }
}

describe('the kept context windows of a sessions factory', () => {
  it('hold at most MAX_CACHED_TURNS turns: the least recently read window goes first, and the answers stay whole', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 3);
    const factory = sessions(laser);
    // three conversations of 6 × 6,000 turns, each alone on a partition: 108,000 turns in all, over the bound
    const conversations: Session[] = [];
    const homes = new Set<number>();
    for (let n = 0; conversations.length < 3; n++) {
      const session = factory.create(`conversation-${n}`);
      const home = await partitionForKey(session.conversation.toString(), 3);
      if (homes.has(home)) continue;
      homes.add(home);
      conversations.push(session);
    }
    for (const session of conversations) for (const topic of factory.config.topics()) await fill(counting.log, session, topic, 6000, 8);
    const [a, b, c] = conversations as [Session, Session, Session];

    expect(await a.turns()).toHaveLength(36_000);
    expect(await b.turns()).toHaveLength(36_000);
    expect(factory.turnWindows).toMatchObject({ windows: 2, turns: 72_000 });
    expect(await c.turns()).toHaveLength(36_000);
    // a, the least recently read, was dropped
    expect(factory.turnWindows).toMatchObject({ windows: 2, turns: 72_000 });
    expect(72_000 + 36_000).toBeGreaterThan(MAX_CACHED_TURNS);

    // c, read last, is kept: its next read reads only the one record per topic that checks expiry
    counting.reset();
    expect(await c.turns()).toHaveLength(36_000);
    expect(counting.read(factory.config.topics())).toBe(6);
    // a was dropped: its next read reads the whole window of its own partitions again (and drops b,
    // now the oldest); the partitions of b and c are not read, since the layout puts a's turns on its own
    counting.reset();
    expect(await a.turns()).toHaveLength(36_000);
    expect(counting.read(factory.config.topics())).toBe(36_000);
    expect(factory.turnWindows).toMatchObject({ windows: 2, turns: 72_000 });
  });

  it('hold at most MAX_CACHED_TURN_BYTES: a window that alone holds more is read whole each time and never kept', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 1);
    const factory = sessions(laser);
    const big = factory.create('big');
    const small = factory.create('small');
    const mib = 1024 * 1024;
    const count = MAX_CACHED_TURN_BYTES / mib + 2;
    await fill(counting.log, small, AgentTopic.Commands, 3, 16);
    await fill(counting.log, big, AgentTopic.LlmIo, count, mib);

    expect((await small.turns()).length).toBe(3);
    expect(factory.turnWindows).toMatchObject({ windows: 1, turns: 3 });
    const turns = await big.turns();
    expect(turns).toHaveLength(count);
    expect(turns.map((t) => t.message.payload[0])).toEqual(Array.from({ length: count }, (_, i) => i % 251));
    // the big window is not kept; the small one still is
    const usage = factory.turnWindows;
    expect(usage.bytes).toBeLessThanOrEqual(MAX_CACHED_TURN_BYTES);
    expect(usage).toMatchObject({ windows: 1, turns: 3 });
    counting.reset();
    expect(await big.turns()).toHaveLength(count);
    expect(counting.read([AgentTopic.LlmIo])).toBe(count);
    counting.reset();
    expect(await small.turns()).toHaveLength(3);
    expect(counting.read([AgentTopic.Commands])).toBe(1);
  });
});
