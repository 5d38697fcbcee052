/**
 * Group commits over VSR: the store is the ownership check (the server refuses a group offset for
 * a partition the member does not own), so a commit is one request; classic still asks for the
 * assignment first.
 */
import { CommandCode } from '@agdx/iggy-protocol';
import type { FakeRequest } from './support/fake-iggy-server.js';
import { ConflictError } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

let server: FakeServer;
const seen: FakeRequest[] = [];
const open: IggyTransport[] = [];

beforeAll(async () => {
  server = await startFakeServer({
    intercept: (request) => {
      seen.push(request);
      return undefined;
    },
  });
});
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
afterAll(async () => {
  await server.close();
});

let counter = 0;

async function setUp(protocol: 'vsr' | 'classic'): Promise<{ t: IggyTransport; stream: string }> {
  const t = await IggyTransport.connect(server.url, { protocol, heartbeatIntervalMs: 0 });
  open.push(t);
  const stream = `commit-${protocol}-${++counter}-${Date.now().toString(36)}`;
  await t.ensureStream(stream);
  await t.ensureTopic({ stream, topic: 't' }, { partitions: 2 });
  for (const partition of [0, 1]) {
    await t.append({ stream, topic: 't', routing: { partition }, records: [{ payload: new Uint8Array([1]) }, { payload: new Uint8Array([2]) }] });
  }
  return { t, stream };
}

const codesSince = (from: number): number[] => seen.slice(from).map((r) => r.code);

describe('group commit', () => {
  it('vsr: a commit on an owned partition is one StoreConsumerOffset, no SyncConsumerGroup, and the offset is stored', async () => {
    const { t, stream } = await setUp('vsr');
    const member = await t.joinGroup({ stream, topic: 't', group: 'g' });
    expect(await member.assignment()).toEqual([0, 1]);
    const from = seen.length;
    await member.commit(1, 1n);
    expect(codesSince(from)).toEqual([CommandCode.StoreConsumerOffset]);
    expect(await t.getOffset({ stream, topic: 't', partition: 1, consumer: { kind: 'group', name: 'g' } })).toBe(1n);
  });

  it('vsr: a commit on a partition another member owns is a ConflictError and stores nothing', async () => {
    const { t, stream } = await setUp('vsr');
    const a = await t.joinGroup({ stream, topic: 't', group: 'g' });
    const b = await t.joinGroup({ stream, topic: 't', group: 'g' });
    const ownedByB = await b.assignment();
    expect(ownedByB).toHaveLength(1);
    const partition = ownedByB[0] as number;
    expect(await a.assignment()).not.toContain(partition);
    const refused = await a.commit(partition, 1n).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConflictError);
    expect(await t.getOffset({ stream, topic: 't', partition, consumer: { kind: 'group', name: 'g' } })).toBeUndefined();
    // The owner's commit still goes through.
    await b.commit(partition, 0n);
    expect(await t.getOffset({ stream, topic: 't', partition, consumer: { kind: 'group', name: 'g' } })).toBe(0n);
  });

  it('classic: the assignment is asked before the store, and an unowned partition is a ConflictError without a store', async () => {
    const { t, stream } = await setUp('classic');
    const a = await t.joinGroup({ stream, topic: 't', group: 'g' });
    const b = await t.joinGroup({ stream, topic: 't', group: 'g' });
    const partition = (await b.assignment())[0] as number;
    const from = seen.length;
    const refused = await a.commit(partition, 1n).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConflictError);
    expect(codesSince(from)).not.toContain(CommandCode.StoreConsumerOffset);
    const mine = (await a.assignment())[0] as number;
    const before = seen.length;
    await a.commit(mine, 1n);
    expect(codesSince(before)).toEqual([CommandCode.GetConsumerGroup, CommandCode.StoreConsumerOffset]);
  });
});
