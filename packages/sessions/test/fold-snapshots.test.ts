import { describe, expect, it } from 'vitest';
import { AgdxClient, SESSIONS_TOPIC } from '@agdx/agents';
import { AgdxError, HEARTBEAT_TOPIC, type CodecError, type ConversationId } from '@agdx/wire';
import { FOLD_HEADER, FOLD_STREAM_HEADER, FoldSnapshotRejectedError, SessionConfig, SNAPSHOT_TOPIC, sessions, type Session, type Sessions } from '@agdx/sessions';
import { decodeFoldImage, encodeFoldImage } from '../src/reads/fold-image.js';
import { agent, clientOn, countingLog, exchange, expectSameAsFresh, LANE, model, text } from './support/counting-log.js';

/** A log with two sessions (one a child of the other), some turns and state, and a snapshot of it. */
async function snapshotted(partitions = 2): Promise<{ counting: ReturnType<typeof countingLog>; laser: AgdxClient; ids: ConversationId[]; writer: Sessions; parent: Session }> {
  const counting = countingLog();
  const laser = await clientOn(counting.transport, partitions);
  const writer = sessions(laser);
  const parent = writer.create('parent');
  const child = writer.create('child');
  await parent.lifecycle.begin({ agent });
  await child.lifecycle.begin({ agent, parent: parent.conversation });
  await parent.lifecycle.snapshot({ step: 1 });
  for (let i = 0; i < 10; i++) await exchange(laser, child.conversation);
  await child.lifecycle.end();
  const written = await writer.snapshot();
  expect(written).toMatchObject({ topic: SNAPSHOT_TOPIC, partition: 0, offset: 0n, sessions: 2 });
  return { counting, laser, ids: [parent.conversation, child.conversation], writer, parent };
}

async function appendSnapshot(laser: AgdxClient, payload: Uint8Array, stream = 'demo'): Promise<void> {
  const headers = new Map([
    [FOLD_HEADER, { kind: 'string' as const, value: text.encode('sessions') }],
    [FOLD_STREAM_HEADER, { kind: 'string' as const, value: text.encode(stream) }],
  ]);
  await laser.transport.append({ stream: 'demo', topic: SNAPSHOT_TOPIC, records: [{ headers, payload }], routing: { partition: 0 } });
}

async function lastSnapshotPayload(laser: AgdxClient, stream = 'demo'): Promise<Uint8Array> {
  const d = await laser.transport.describeTopic({ stream, topic: SNAPSHOT_TOPIC });
  const next = d.partitions[0]?.nextOffset ?? 0n;
  const [record] = await laser.transport.read({ stream, topic: SNAPSHOT_TOPIC, partition: 0, offset: next - 1n, maxCount: 1 });
  return (record as { payload: Uint8Array }).payload;
}

/** A new reader (a new process) with an error collector. */
function newReader(laser: AgdxClient): { reader: Sessions; errors: CodecError[] } {
  const errors: CodecError[] = [];
  return { reader: sessions(laser, undefined, { onError: (e) => errors.push(e) }), errors };
}

function rejection(errors: readonly CodecError[]): FoldSnapshotRejectedError | undefined {
  const cause = errors.find((e) => e.cause instanceof FoldSnapshotRejectedError)?.cause;
  return cause as FoldSnapshotRejectedError | undefined;
}

describe('session fold snapshots', () => {
  it('a new reader starts from the snapshot, reads only the records after it, and answers as a full fold does', async () => {
    const { counting, laser, ids, parent: session } = await snapshotted();
    const [parent] = ids as [ConversationId, ConversationId];
    await exchange(laser, parent);
    await session.lifecycle.snapshot({ step: 2 });

    counting.reset();
    const { reader, errors } = newReader(laser);
    const info = await reader.get(parent);
    expect(info?.modelCalls).toBe(1n);
    // the snapshot covered everything but the exchange and the state snapshot
    expect(counting.read(LANE)).toBe(3);
    expect((await reader.sources(parent)).start).toEqual({ from: 'snapshot', snapshot: { topic: SNAPSHOT_TOPIC, partition: 0, offset: 0n } });
    expect(errors).toEqual([]);
    await expectSameAsFresh(laser, reader, ids);
  });

  it('the state and timeline of a session restored from a snapshot are folded from the log once', async () => {
    const { counting, laser, ids } = await snapshotted();
    const [parent, child] = ids as [ConversationId, ConversationId];
    const { reader } = newReader(laser);
    expect((await reader.state(parent)).document).toEqual({ step: 1 });
    expect((await reader.events(child)).items).toHaveLength(22);
    counting.reset();
    expect((await reader.events(child)).items).toHaveLength(22);
    expect(counting.read(LANE)).toBe(0);
  });

  it('snapshotEvery writes a snapshot after that many folded records', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport);
    const auto = sessions(laser, undefined, { snapshotEvery: 10 });
    const s = auto.create('s');
    await s.lifecycle.begin({ agent });
    await auto.get(s.conversation);
    await expect(laser.transport.describeTopic({ stream: 'demo', topic: SNAPSHOT_TOPIC })).rejects.toThrow();
    for (let i = 0; i < 5; i++) await exchange(laser, s.conversation);
    await auto.get(s.conversation);
    const d = await laser.transport.describeTopic({ stream: 'demo', topic: SNAPSHOT_TOPIC });
    expect(d.partitions[0]?.nextOffset).toBe(1n);
    expect(() => sessions(laser, undefined, { snapshotEvery: 0 })).toThrow(/snapshotEvery/);
  });

  it('a corrupt snapshot is refused with a typed error and the reader folds the log', async () => {
    const { laser, ids } = await snapshotted();
    const good = await lastSnapshotPayload(laser);
    const corrupt = good.slice(0, good.length - 7);
    const flipped = good.slice();
    flipped[good.length - 40] = (flipped[good.length - 40] as number) ^ 0x01;
    await expect(decodeFoldImage(flipped)).rejects.toThrow(/digest|decode|fold snapshot/);
    await appendSnapshot(laser, corrupt);
    const { reader, errors } = newReader(laser);
    await expectSameAsFresh(laser, reader, ids);
    const start = (await reader.sources(ids[0] as ConversationId)).start;
    expect(start.from).toBe('log');
    expect(start.rejected?.reason).toBe('corrupt');
    expect(rejection(errors)?.kind).toBe('conflict');
    expect(errors[0]?.context).toMatchObject({ stream: 'demo', topic: SNAPSHOT_TOPIC, partition: 0, offset: 1n });
  });

  it('a snapshot of another stream is refused', async () => {
    const { laser, ids } = await snapshotted();
    const other = laser.withDefaultStream('other');
    await other.bootstrap(2);
    const o = sessions(other).create('o');
    await o.lifecycle.begin({ agent });
    await sessions(other).snapshot();
    await appendSnapshot(laser, await lastSnapshotPayload(laser, 'other'));
    const { reader, errors } = newReader(laser);
    await expectSameAsFresh(laser, reader, ids);
    expect(rejection(errors)?.reason).toBe('stream');
  });

  it('a snapshot written under another layout is refused', async () => {
    const { laser, ids, counting } = await snapshotted();
    // the stream is migrated to the other layout on purpose, so its readers may use it
    const perAgent = AgdxClient.from(counting.transport, { stream: 'demo', layout: { kind: 'perAgentPartition', partitions: new Map([[model.value, 1]]) } });
    await perAgent.bootstrap(2, { replaceLayout: true });
    const { reader, errors } = newReader(perAgent);
    await expectSameAsFresh(perAgent, reader, ids);
    expect(rejection(errors)?.reason).toBe('layout');
    expect(laser).toBeDefined();
  });

  it('resume offsets beyond a partition end are refused', async () => {
    const { laser, ids } = await snapshotted();
    const image = await decodeFoldImage(await lastSnapshotPayload(laser));
    const topics = image.topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ ...p, next: p.next + 5n })) }));
    await appendSnapshot(laser, await encodeFoldImage({ ...image, topics }));
    const { reader, errors } = newReader(laser);
    await expectSameAsFresh(laser, reader, ids);
    expect(rejection(errors)?.reason).toBe('beyond-end');
  });

  it('a topic deleted and recreated since the snapshot makes it stale', async () => {
    const { laser, ids, counting } = await snapshotted();
    await counting.log.deleteTopic({ stream: 'demo', topic: SESSIONS_TOPIC });
    await counting.log.ensureTopic({ stream: 'demo', topic: SESSIONS_TOPIC }, { partitions: 2 });
    await exchange(laser, ids[0] as ConversationId);
    const { reader, errors } = newReader(laser);
    await expectSameAsFresh(laser, reader, ids);
    expect(rejection(errors)?.reason).toBe('generation');
  });

  it('a snapshot over other partition counts is refused', async () => {
    const { laser, ids, counting } = await snapshotted();
    await counting.log.deleteTopic({ stream: 'demo', topic: HEARTBEAT_TOPIC });
    await counting.log.ensureTopic({ stream: 'demo', topic: HEARTBEAT_TOPIC }, { partitions: 3 });
    const { reader, errors } = newReader(laser);
    await expectSameAsFresh(laser, reader, ids);
    expect(rejection(errors)?.reason).toBe('topics');
  });

  it('mutated snapshot bytes never crash a reader and never change an answer', async () => {
    const { laser, ids } = await snapshotted();
    const good = await lastSnapshotPayload(laser);
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fff_ffff;
      return seed % n;
    };
    for (let i = 0; i < 400; i++) {
      const bytes = good.slice();
      for (let k = 0; k < 1 + random(4); k++) bytes[random(bytes.length)] = random(256);
      try {
        await decodeFoldImage(bytes);
      } catch (error) {
        expect(AgdxError.is(error)).toBe(true);
      }
    }
    const fresh = sessions(laser, undefined, { snapshots: false });
    const expected = await fresh.list({ limit: 1000 });
    for (let i = 0; i < 12; i++) {
      const bytes = good.slice();
      const at = 20 + random(bytes.length - 20);
      bytes[at] = (bytes[at] as number) ^ 0xff;
      await appendSnapshot(laser, bytes);
      const { reader } = newReader(laser);
      // the digest refuses a changed fold; a change outside it (as_of) changes nothing the reader uses
      expect(await reader.list({ limit: 1000 })).toEqual(expected);
    }
  });
});

describe('fold snapshots on a custom session layout (seed 004)', () => {
  it('are written on the layout stream, and a reader of the client default stream does not take them', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 2);
    await counting.log.ensureStream('support');
    for (const topic of [SESSIONS_TOPIC, 'agent.control', HEARTBEAT_TOPIC]) await counting.log.ensureTopic({ stream: 'support', topic }, { partitions: 2 });
    const config = new SessionConfig().stream('support');
    const support = sessions(laser, config);
    const s = support.create('ticket-7');
    await s.lifecycle.begin({ agent });
    await exchange(laser.withDefaultStream('support'), s.conversation);
    const written = await support.snapshot();
    expect(written.topic).toBe(SNAPSHOT_TOPIC);
    expect((await counting.log.describeTopic({ stream: 'support', topic: SNAPSHOT_TOPIC })).partitions[0]?.nextOffset).toBe(1n);

    const next = sessions(laser, config);
    expect((await next.get(s.conversation))?.modelCalls).toBe(1n);
    expect((await next.sources(s.conversation)).start.from).toBe('snapshot');
    await expectSameAsFresh(laser.withDefaultStream('support'), next, [s.conversation]);
    // the default stream has no snapshot of its own and nothing of this session
    const other = sessions(laser);
    expect(await other.get(s.conversation)).toBeUndefined();
    expect((await other.sources(s.conversation)).start).toEqual({ from: 'log', rejected: undefined });
  });
});

describe('automatic fold snapshots', () => {
  it('that cannot be written are reported, and the read still answers', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 1);
    // a log that refuses the snapshot append
    const refusing = new Proxy(counting.transport, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (prop !== 'append') return value;
        return async (request: Parameters<typeof target.append>[0]) => {
          if (request.topic === SNAPSHOT_TOPIC) throw new Error('refused');
          return target.append(request);
        };
      },
    });
    const errors: CodecError[] = [];
    const auto = sessions(await clientOn(refusing, 1), undefined, { snapshotEvery: 2, onError: (e) => errors.push(e) });
    const s = auto.create('s');
    await s.lifecycle.begin({ agent });
    await exchange(laser, s.conversation);
    expect((await auto.get(s.conversation))?.modelCalls).toBe(1n);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/automatic fold snapshot/);
    expect((errors[0]?.cause as Error).message).toBe('refused');
  });
});
