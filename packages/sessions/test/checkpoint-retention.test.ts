/**
 * Checkpoints whose positions the log no longer holds: records expired by retention before a
 * replay, and a checkpoint captured in the middle of a batch appended at once.
 */
import { describe, expect, it } from 'vitest';
import { AgentTopic } from '@agdx/agents';
import { Checkpoint, SessionConfig, sessions, sessionTurnText, type SessionTurn } from '@agdx/sessions';
import { ManualLogClock, MemoryLog } from '@agdx/transport';
import { encodeProvenanceHeaders } from '@agdx/wire';
import { clientOn } from './support/counting-log.js';

const texts = (turns: readonly SessionTurn[]): string[] => turns.map(sessionTurnText);

describe('replay from a checkpoint the log has partly dropped', () => {
  it('turnsSince and replay start at the first retained record; turnsAt keeps what is retained before the checkpoint', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    const laser = await clientOn(log, 1);
    await log.ensureTopic({ stream: 'demo', topic: 'short.turns' }, { partitions: 1, messageExpiryMicros: 1_000_000n });
    const session = sessions(laser, new SessionConfig().topic('instruction', 'short.turns')).create('expiring');
    await session.append('instruction', 'before');
    const saved = (await session.checkpoint()).toJSONText();
    await session.append('instruction', 'expires');
    clock.advance(600_000n);
    await session.append('instruction', 'stays');
    await session.append('response', 'durable');
    clock.advance(600_000n);

    const checkpoint = Checkpoint.fromJSON(saved);
    expect(texts(await session.turnsSince(checkpoint))).toEqual(['stays', 'durable']);
    expect(await session.replay(checkpoint, 0, (n) => n + 1)).toBe(2);
    expect(texts(await session.turnsAt(checkpoint))).toEqual([]);
    expect(texts(await session.turnsAt(await session.checkpoint()))).toEqual(['stays', 'durable']);
  });

  it('a checkpoint in the middle of a batch appended at once splits it exactly: turnsAt and turnsSince together are every turn once', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const session = sessions(laser).create('batched');
    const headers = encodeProvenanceHeaders({ conversation: session.conversation });
    const encoder = new TextEncoder();
    await log.append({ stream: 'demo', topic: AgentTopic.Commands, routing: { partition: 0 }, records: Array.from({ length: 2500 }, (_, i) => ({ headers, payload: encoder.encode(`t${i}`) })) });
    // every record shares one broker time; the checkpoint names offset 1,234 of the batch
    const middle = Checkpoint.fromJSON({ per_topic: { [AgentTopic.Commands]: { '0': 1234 } } });
    const at = texts(await session.turnsAt(middle));
    const since = texts(await session.turnsSince(middle));
    expect(at).toHaveLength(1234);
    expect(since).toHaveLength(2500 - 1234);
    expect([...at, ...since]).toEqual(Array.from({ length: 2500 }, (_, i) => `t${i}`));
  });
});
