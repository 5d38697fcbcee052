/**
 * Every connection cut while appends to several partitions are on the wire (classic pipelined,
 * VSR over several connections), right after the server stored one of them and before its reply
 * left. Whatever each caller sees, nothing is lost silently: a resolved append is stored at the
 * offsets it was given, a clean failure stored nothing, and every stored record belongs to a
 * resolved append or to one whose outcome was reported unknown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

describe.each([
  ['vsr', 3],
  ['classic', 1],
  ['classic', 3],
] as const)('a cut during concurrent appends over %s with %i connections', (protocol, connections) => {
  it('loses nothing silently', async () => {
    let sends = 0;
    let armed = false;
    let server: FakeServer | undefined;
    server = await startFakeServer({
      intercept: (r) => {
        if (!armed || r.code !== CommandCode.SendMessages) return undefined;
        sends++;
        if (sends !== 5) return undefined;
        // Stored, then every connection cut before its reply (or any later one) is written.
        return {
          tamper: () => {
            server?.dropAll();
            return [];
          },
        };
      },
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=${protocol}`, {
      heartbeatIntervalMs: 0,
      connections,
      reconnect: { maxAttempts: 5, initialDelayMs: 10, maxDelayMs: 20 },
    });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 4 });
    armed = true;
    const calls = Array.from({ length: 16 }, (_, i) => {
      const tag = i + 1;
      const records = [{ payload: Uint8Array.of(tag) }, { payload: Uint8Array.of(tag) }];
      return t.append({ stream: 's', topic: 't', routing: { partition: i % 4 }, records }).then(
        (placed) => ({ tag, partition: i % 4, placed, error: undefined as unknown }),
        (error: unknown) => ({ tag, partition: i % 4, placed: undefined, error }),
      );
    });
    const outcomes = await Promise.all(calls);
    const stored = new Map<number, { partition: number; offset: bigint }[]>();
    for (let partition = 0; partition < 4; partition++) {
      for (const r of await server.log.read({ stream: 's', topic: 't', partition, offset: 0n, maxCount: 1000 })) {
        const tag = r.payload[0] as number;
        stored.set(tag, [...(stored.get(tag) ?? []), { partition, offset: r.offset }]);
      }
    }
    let unknown = 0;
    for (const o of outcomes) {
      const mine = stored.get(o.tag) ?? [];
      if (o.placed !== undefined) {
        expect(o.placed.partition).toBe(o.partition);
        expect(mine).toEqual([
          { partition: o.partition, offset: o.placed.baseOffset },
          { partition: o.partition, offset: o.placed.baseOffset + 1n },
        ]);
      } else if (isOutcomeUnknown(o.error)) {
        unknown++;
        expect([0, 2]).toContain(mine.length);
      } else {
        expect(o.error).toMatchObject({ kind: 'transport' });
        expect(mine).toEqual([]);
      }
    }
    // The swallowed send at least was reported unknown, and it was stored.
    expect(unknown).toBeGreaterThanOrEqual(1);
    expect([...stored.keys()].every((tag) => outcomes.some((o) => o.tag === tag && (o.placed !== undefined || isOutcomeUnknown(o.error))))).toBe(true);
  });
});
