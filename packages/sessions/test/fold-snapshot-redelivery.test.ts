/**
 * The redelivery window inside a session fold snapshot: written with the fold, read back exactly,
 * and any row a writer could not have produced (digest intact) refuses the whole snapshot, so the
 * reader folds the log instead of trusting it.
 */
import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC, type AgdxClient } from '@agdx/agents';
import { REDELIVERY_WINDOW, SNAPSHOT_TOPIC, sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, MintUlid, RecordId, decodeFoldSnapshot, decodeStrictCbor, encodeCbor, encodeFoldSnapshot, type CborValue, type ConversationId } from '@agdx/wire';
import { decodeFoldImage } from '../src/reads/fold-image.js';
import { clientOn, expectSameAsFresh } from './support/counting-log.js';

const agent = AgentId.parse('planner');

async function spend(laser: AgdxClient, id: ConversationId): Promise<void> {
  await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('note').withUsage({ inputTokens: 3n, outputTokens: 0n }), 1);
}

async function snapshotPayload(log: MemoryLog): Promise<{ payload: Uint8Array; headers: Map<string, never> }> {
  const [record] = await log.read({ stream: 'demo', topic: SNAPSHOT_TOPIC, partition: 0, offset: 0n, maxCount: 1 });
  if (record === undefined) throw new Error('no snapshot');
  return { payload: record.payload, headers: record.headers as Map<string, never> };
}

/** The snapshot with its redelivery rows replaced by `rows`, sealed with a correct digest: only the rows are wrong. */
async function withRows(payload: Uint8Array, rows: (current: CborValue[]) => CborValue[]): Promise<Uint8Array> {
  const capsule = decodeFoldSnapshot(payload);
  const sealed = decodeStrictCbor(capsule.state) as Map<CborValue, CborValue>;
  const image = decodeStrictCbor(sealed.get('image') as Uint8Array, { maxItems: 1_000_000 }) as Map<CborValue, CborValue>;
  image.set('redelivery', rows(image.get('redelivery') as CborValue[]));
  const folded = encodeCbor(image);
  const sha256 = new Uint8Array(await crypto.subtle.digest('SHA-256', folded as Uint8Array<ArrayBuffer>));
  const state = encodeCbor(new Map<CborValue, CborValue>([['image', folded], ['sha256', sha256]]));
  return encodeFoldSnapshot({ conversation: capsule.conversation, asOf: capsule.asOf, state });
}

describe('the redelivery window in fold snapshots', () => {
  it('is saved and restored entry for entry', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 2);
    const factory = sessions(laser);
    const ids = [factory.create('a').conversation, factory.create('b').conversation];
    for (let i = 0; i < 5; i++) for (const id of ids) await spend(laser, id);
    await factory.snapshot();
    const view = (await factory.reads.foldedState(ids[0] as ConversationId)).view;
    const image = await decodeFoldImage((await snapshotPayload(log)).payload);
    expect([...image.fold.redelivery.partitions()]).toEqual([...view.fold.redelivery.partitions()]);
    expect(image.fold.redelivery.size).toBe(10);
  });

  it('a row a writer could not have written refuses the snapshot, and the reader folds the log', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const factory = sessions(laser);
    const id = factory.create('hostile').conversation;
    for (let i = 0; i < 3; i++) await spend(laser, id);
    await factory.snapshot();
    const { payload, headers } = await snapshotPayload(log);
    const tooMany = Array.from({ length: REDELIVERY_WINDOW + 1 }, (_, i) => BigInt(i));
    const bad: ((rows: CborValue[]) => CborValue[])[] = [
      // more offsets than the window spans
      (rows) => [[(rows[0] as CborValue[])[0] as CborValue, new Uint8Array(16 * tooMany.length), tooMany]],
      // offsets out of order
      (rows) => [[(rows[0] as CborValue[])[0] as CborValue, new Uint8Array(32), [5n, 4n]]],
      // ids not 16 bytes per offset
      (rows) => [[(rows[0] as CborValue[])[0] as CborValue, new Uint8Array(20), [1n]]],
      // one partition twice
      (rows) => [rows[0] as CborValue, rows[0] as CborValue],
      // not a row
      () => [[1n, 2n]],
    ];
    for (const rows of bad) {
      const hostile = await withRows(payload, rows);
      await expect(decodeFoldImage(hostile)).rejects.toMatchObject({ kind: 'codec' });
      await log.append({ stream: 'demo', topic: SNAPSHOT_TOPIC, records: [{ headers, payload: hostile }], routing: { partition: 0 } });
      const reader = sessions(laser, undefined, { onError: () => undefined });
      expect((await reader.reads.sources(id)).start).toMatchObject({ from: 'log', rejected: { reason: 'corrupt' } });
      expect((await reader.reads.get(id))?.tokensIn).toBe(9n);
      await expectSameAsFresh(laser, reader, [id]);
    }
  });
});
