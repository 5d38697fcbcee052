/**
 * A lane topic deleted and recreated numbers the change feed again from 1. A poller whose last
 * sequence belongs to the old numbering is told to resync and gets the new rows from the start,
 * instead of polling an empty feed until the new log grows past its old sequence.
 */
import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { agent, clientOn, countingLog, exchange } from './support/counting-log.js';

describe('a change feed numbered again', () => {
  it('a poll after a sequence the feed no longer reaches resyncs from the start', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 2);
    const factory = sessions(laser);
    const old = factory.create('old');
    await old.lifecycle.begin({ agent });
    for (let i = 0; i < 5; i++) await exchange(laser, old.conversation);
    const last = await factory.reads.latestChange();
    expect(last).toBe(11n);

    await counting.log.deleteTopic({ stream: 'demo', topic: SESSIONS_TOPIC });
    await counting.log.ensureTopic({ stream: 'demo', topic: SESSIONS_TOPIC }, { partitions: 2 });
    const renewed = factory.create('new');
    await renewed.lifecycle.begin({ agent });

    const page = await factory.changes(last);
    expect(page.resync).toBe(true);
    expect(page.rows.map((r) => [r.seq, r.sessions.map(String)])).toEqual([[1n, [renewed.conversation.toString()]]]);
    // polling on from the new numbering is ordinary again
    const next = await factory.changes(page.rows.at(-1)?.seq ?? 0n);
    expect(next).toMatchObject({ rows: [], resync: false });
    await exchange(laser, renewed.conversation);
    expect((await factory.changes(1n)).rows.map((r) => r.seq)).toEqual([2n, 3n]);
  });
});
