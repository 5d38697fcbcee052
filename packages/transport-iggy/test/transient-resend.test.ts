/**
 * VSR transient statuses (57/58) resend the identical bytes after a pause. A resend must only go
 * out while its request is still waiting: once the request was answered, its pooled frame buffer
 * serves the next send, and a late resend would write that other request's bytes a second time.
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

/** A batch large enough (over 16 KiB) for its frame to come from the shared frame pool. */
function batch(tag: number): { payload: Uint8Array }[] {
  return Array.from({ length: 40 }, () => ({ payload: new Uint8Array(1000).fill(tag) }));
}

describe('a transient status followed by the real answer to the same VSR request', () => {
  it('sends no stale resend: every batch is stored once and the connection stays up', async () => {
    let sends = 0;
    const server = await startFakeServer({
      intercept: (r) => {
        if (r.code !== CommandCode.SendMessages) return undefined;
        sends++;
        // The first send is answered twice: 57 (resend later), then its real confirmation.
        return sends === 1 ? { tamper: (frame, status) => [status(57), frame] } : undefined;
      },
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=vsr`, { heartbeatIntervalMs: 0 });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    const first = await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: batch(1) });
    // Takes the first send's frame buffer from the pool while its resend timer is still armed.
    const second = await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: batch(2) });
    expect([first.baseOffset, second.baseOffset]).toEqual([0n, 40n]);
    // Long past the 50 ms resend pause: a stale resend would have written by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: batch(3) });
    expect(third.baseOffset).toBe(80n);
    expect(sends).toBe(3);
    expect(t.reconnects).toBe(0);
    const stored = await server.log.read({ stream: 's', topic: 't', partition: 0, offset: 0n, maxCount: 1000 });
    expect(stored.map((r) => r.payload[0])).toEqual([...Array(40).fill(1), ...Array(40).fill(2), ...Array(40).fill(3)]);
  });

  it('a duplicated transient status arms one resend, not two', async () => {
    let sends = 0;
    const server = await startFakeServer({
      intercept: (r) => {
        if (r.code !== CommandCode.SendMessages) return undefined;
        sends++;
        // The log applies the first send, then its reply is replaced by the same 57 twice.
        return sends === 1 ? { tamper: (_frame, status) => [status(57), status(57)] } : undefined;
      },
    });
    servers.push(server);
    const t = await IggyTransport.connect(`${server.url}?protocol=vsr`, { heartbeatIntervalMs: 0 });
    transports.push(t);
    await t.ensureStream('s');
    await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    const placed = await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: batch(1) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sends).toBe(2);
    expect(t.reconnects).toBe(0);
    const stored = await server.log.read({ stream: 's', topic: 't', partition: 0, offset: 0n, maxCount: 1000 });
    // The first copy (applied before its reply was replaced) and the one resend; a second resend
    // would make three.
    expect(stored).toHaveLength(80);
    expect(placed.baseOffset).toBe(40n);
  });
});
