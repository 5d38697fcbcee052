/**
 * Classic servers answer SendMessages with nothing, so a classic append learns its offsets from
 * a GetTopic written right behind the send. With several shared connections, two appends of
 * this transport to one partition under different targets (a partition id and a key, or two
 * keys) must still each get the offsets of their own records, whatever order the server takes
 * the connections' requests in.
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

function records(tag: number, n: number): { payload: Uint8Array }[] {
  return Array.from({ length: n }, () => ({ payload: Uint8Array.of(tag) }));
}

describe('classic appends to one partition over several connections', () => {
  it('each caller gets the offsets of its own records', async () => {
    let armed = false;
    let sendsSeen = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let heldConnection = 0;
    const server = await startFakeServer({
      intercept: (r) => {
        if (!armed) return undefined;
        if (r.code === CommandCode.SendMessages) {
          sendsSeen++;
          if (sendsSeen === 1) heldConnection = r.connection;
          return undefined;
        }
        // The offset read behind the first send waits until the second send was applied and
        // read back (on whichever connection it went); then it runs.
        if (r.code === CommandCode.GetTopic && sendsSeen === 1 && r.connection === heldConnection) return { hold: held };
        if (r.code === CommandCode.GetTopic && sendsSeen === 2) setTimeout(release, 0);
        return undefined;
      },
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=classic`, { heartbeatIntervalMs: 0, connections: 2, requestTimeoutMs: 10_000 });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    const before = server.received();
    armed = true;
    const a = t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: records(1, 3) });
    const b = t.append({ stream: 's', topic: 't', routing: { key: 'k' }, records: records(2, 5) });
    // The two appends write five requests (the key's partition count read, two sends, two offset
    // reads). Once all have reached the server, a second send on another connection has been
    // served (the server serves what arrived without waiting for the network), and one on the
    // held connection waits behind the held read: the hold is released either way.
    while (server.received() - before < 5) await new Promise((resolve) => setTimeout(resolve, 1));
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    release();
    const results = await Promise.all([a, b]);
    const stored = await server.log.read({ stream: 's', topic: 't', partition: 0, offset: 0n, maxCount: 100 });
    expect(stored).toHaveLength(8);
    for (const [result, tag, n] of [[results[0], 1, 3], [results[1], 2, 5]] as const) {
      const own = stored.filter((r) => r.offset >= result.baseOffset && r.offset < result.baseOffset + BigInt(n));
      expect(own.map((r) => r.payload[0])).toEqual(Array(n).fill(tag));
    }
  });

  it('an offset read refused behind an acknowledged send: the append reports an unknown outcome', async () => {
    let armed = false;
    const server = await startFakeServer({
      // The server refuses the read behind the send (any status); the send itself was stored.
      intercept: (r) => (armed && r.code === CommandCode.GetTopic ? { status: 1 } : undefined),
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=classic`, { heartbeatIntervalMs: 0 });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    armed = true;
    const error = await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: records(1, 2) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'transport' });
    expect(isOutcomeUnknown(error)).toBe(true);
    expect(await server.log.read({ stream: 's', topic: 't', partition: 0, offset: 0n })).toHaveLength(2);
  });
});
