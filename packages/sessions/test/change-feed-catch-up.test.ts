/**
 * A poller behind the reader's change window catches up page by page: each page continues where
 * the previous one stopped instead of reading the log again from its retained start.
 */
import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC } from '@agdx/agents';
import { CHANGE_WINDOW, sessions, type SessionChangeRow } from '@agdx/sessions';
import { ConversationId, encodeProvenanceHeaders } from '@agdx/wire';
import { clientOn, countingLog } from './support/counting-log.js';

const OLDER = 10_000;
const PAGE = 1_000;

describe('catching up on the change feed from before the window', () => {
  it('reads about what it serves, and serves what a single read of the log serves', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 2);
    const ids = Array.from({ length: 50 }, (_, i) => ConversationId.derive(`feed-${i}`));
    const headers = ids.map((conversation) => encodeProvenanceHeaders({ conversation }));
    const total = CHANGE_WINDOW + OLDER;
    for (let written = 0; written < total; written += 1000) {
      const records = Array.from({ length: 1000 }, (_, k) => ({ headers: headers[(written + k) % ids.length] as (typeof headers)[number], payload: new Uint8Array([1]) }));
      await counting.log.append({ stream: 'demo', topic: SESSIONS_TOPIC, records, routing: { partition: (written / 1000) % 2 } });
    }
    const factory = sessions(laser, undefined, { snapshots: false });
    expect(await factory.reads.latestChange()).toBe(BigInt(total));

    counting.reset();
    const served: SessionChangeRow[] = [];
    let after = 0n;
    while (served.length < OLDER) {
      const page = await factory.changes(after, PAGE);
      expect(page.resync).toBe(false);
      served.push(...page.rows);
      after = page.rows.at(-1)?.seq ?? after;
    }
    expect(served.map((r) => r.seq)).toEqual(Array.from({ length: served.length }, (_, i) => BigInt(i + 1)));
    // each page reads its rows plus at most two read batches (1,000 records) per partition ahead;
    // a page that started from the retained start each time read 75,000 here, growing as N²/2
    const pages = OLDER / PAGE;
    expect(counting.read([SESSIONS_TOPIC])).toBeLessThanOrEqual(OLDER + pages * 2 * 1000);

    const once = await sessions(laser, undefined, { snapshots: false }).changes(0n, served.length);
    expect(once.rows).toEqual(served);
  });
});
