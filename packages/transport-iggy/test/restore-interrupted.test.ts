/**
 * A connection lost again while it restores its state (a group member re-joining after a
 * reconnect): the reconnect goes on within its policy, and calls queued meanwhile, which were
 * never written, are neither failed nor reported with an unknown outcome.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

describe.each(['vsr', 'classic'] as const)('a re-join cut short over %s', (protocol) => {
  it('reconnects again and serves the calls queued behind it', async () => {
    let cutRejoin = false;
    let joins = 0;
    const server = await startFakeServer({
      intercept: (r) => {
        if (r.code !== CommandCode.JoinConsumerGroup) return undefined;
        joins++;
        if (!cutRejoin) return undefined;
        cutRejoin = false;
        return { destroy: true };
      },
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=${protocol}`, {
      heartbeatIntervalMs: 0,
      reconnect: { maxAttempts: 5, initialDelayMs: 10, maxDelayMs: 20 },
    });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 2 });
    const member = await t.joinGroup({ stream: 's', topic: 't', group: 'g' });
    expect(joins).toBe(1);
    cutRejoin = true;
    server.dropAll();
    // Queued (or, if written before the cut was noticed, a read sent again) behind the re-join.
    await expect(member.assignment()).resolves.toEqual([0, 1]);
    expect(joins).toBe(3);
    expect(server.groupMembers('s', 't', 'g')).toHaveLength(1);
  });
});
