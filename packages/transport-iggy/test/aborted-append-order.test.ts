/**
 * Appends to one target land in call order, even when the caller of the append on the wire
 * aborts it: the abort settles that caller at once, but its request is still on its connection
 * and may yet be applied, so the next append to the target must not overtake it over another
 * connection (VSR with several shared connections).
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

describe('an append aborted after it went out', () => {
  it('is not overtaken by the next append to its target over another connection', async () => {
    let sends = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const server = await startFakeServer({
      intercept: (r) => {
        if (r.code !== CommandCode.SendMessages) return undefined;
        sends++;
        if (sends !== 1) return undefined;
        firstArrived();
        return { hold: held };
      },
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=vsr`, { heartbeatIntervalMs: 0, connections: 2, requestTimeoutMs: 10_000 });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    const abort = new AbortController();
    const first = t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [{ payload: Uint8Array.of(1) }], signal: abort.signal });
    const second = t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [{ payload: Uint8Array.of(2) }] });
    await arrived;
    abort.abort();
    await expect(first).rejects.toMatchObject({ kind: 'cancelled' });
    // The second append must not be applied while the first is still held by the server; once
    // the server lets the first through, both land, in call order.
    const polled = Promise.race([second.then(() => 'second settled'), new Promise((resolve) => setTimeout(resolve, 200, 'waiting'))]);
    const early = await polled;
    release();
    await second;
    const stored = await server.log.read({ stream: 's', topic: 't', partition: 0, offset: 0n, maxCount: 10 });
    expect(stored.map((r) => r.payload[0])).toEqual([1, 2]);
    expect(early).toBe('waiting');
  });
});
