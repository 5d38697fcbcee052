import { AgdxClient, AgentTopic, type StreamLayout } from '@agdx/agents';
import { AGUI_SNAPSHOT_TOPIC, AguiBridge, FOLD_CONVERSATION_HEADER, FOLD_TOPIC_HEADER, type AguiEvent } from '@agdx/agui';
import { FOLD_HEADER, FOLD_STREAM_HEADER, FoldSnapshotRejectedError, type FoldSnapshotRejection } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgdxError, AgentId, ConversationId, CorrelationId, MintUlid, TaskState, type CodecError } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { countingTransport } from './support/counting.js';
import { ANSWER_EVENT_TYPES, writeAnswer } from './support/scenario.js';
import { runRequest, wholeRun } from './support/server.js';

const utf8 = new TextEncoder();

async function client(transport: MemoryLog | ReturnType<typeof countingTransport>['transport'], layout?: StreamLayout, partitions = 4): Promise<AgdxClient> {
  const laser = AgdxClient.from(transport, { stream: 'demo', ...(layout !== undefined ? { layout } : {}) });
  await laser.bootstrap(partitions);
  return laser;
}

/** The events a bridge that reads no snapshot gives: the answer every snapshot must reproduce. */
async function fullFold(laser: AgdxClient, conversation: ConversationId): Promise<AguiEvent[]> {
  return new AguiBridge(laser, { snapshots: false }).aguiEvents(conversation);
}

/** A half-written answer: an open chat channel whose last chunk ends inside a UTF-8 character. */
async function halfAnswer(laser: AgdxClient, conversation: ConversationId): Promise<{ finish: () => Promise<void> }> {
  const correlation = MintUlid.mint(CorrelationId);
  const send = laser.agdx(AgentTopic.Sessions, AgentId.new('assistant'), conversation);
  await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Submitted).send();
  const chat = send.stream(correlation, 'chat');
  const euro = utf8.encode('€'); // three bytes
  await chat.write(Uint8Array.of(...utf8.encode('It costs 5 '), ...euro.subarray(0, 1)));
  await chat.write(euro.subarray(1, 2));
  return {
    finish: async () => {
      await chat.write(Uint8Array.of(...euro.subarray(2), ...utf8.encode(' today.')));
      await chat.finish('stop');
      await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Completed).send();
    },
  };
}

function rejections(errors: CodecError[]): FoldSnapshotRejection[] {
  return errors.flatMap((e) => (e.cause instanceof FoldSnapshotRejectedError ? [e.cause.reason] : []));
}

describe('AG-UI fold snapshots', () => {
  it('a new process starts from the snapshot, mid-character, and reads only what came after it', async () => {
    const log = new MemoryLog();
    // one partition: every conversation shares it, so "only what came after" is an exact count
    const laser = await client(log, undefined, 1);
    const conversation = ConversationId.new();
    await writeAnswer(laser, new AguiBridge(laser), conversation);
    const { finish } = await halfAnswer(laser, conversation);
    const written = await new AguiBridge(laser).snapshot(conversation);
    expect(written).toMatchObject({ topic: AGUI_SNAPSHOT_TOPIC, partition: 0, offset: 0n });
    expect(written.bytes).toBeGreaterThan(0);
    const sessionsEnd = async (): Promise<bigint> => (await log.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions })).partitions.reduce((n, p) => n + p.nextOffset, 0n);
    const atSnapshot = await sessionsEnd();
    await finish();
    for (let i = 0; i < 5; i++) await writeAnswer(laser, new AguiBridge(laser), ConversationId.new());

    const counting = countingTransport(log);
    const fresh = new AguiBridge(AgdxClient.from(counting.transport, { stream: 'demo' }));
    const events = await fresh.aguiEvents(conversation);
    expect(events).toEqual(await fullFold(laser, conversation));
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as { delta: string }).delta).join('')).toContain('It costs 5 € today.');
    // the layout declaration, the snapshot record, then only the records written after the snapshot
    const end = await sessionsEnd();
    expect(counting.count()).toBeLessThanOrEqual(2 + Number(end - atSnapshot));
    expect(counting.count()).toBeLessThan(Number(end));
  });

  it('a new live handler resumes from the snapshot and still honours Last-Event-ID', async () => {
    const log = new MemoryLog();
    const laser = await client(log);
    const conversation = ConversationId.new();
    const first = await writeAnswer(laser, new AguiBridge(laser), conversation);
    const before = new AguiBridge(laser);
    const { lastId } = await wholeRun(await before.handler()(runRequest(conversation, first.correlation.toString())));
    await before.snapshot(conversation);
    const second = await writeAnswer(laser, new AguiBridge(laser), conversation);
    const request = () => runRequest(conversation, second.correlation.toString(), lastId);
    const restored = await wholeRun(await new AguiBridge(laser).handler()(request()));
    const full = await wholeRun(await new AguiBridge(laser, { snapshots: false }).handler()(request()));
    expect(restored.events.map((e) => e.type)).toEqual(['RUN_STARTED', ...ANSWER_EVENT_TYPES.slice(1)]);
    expect(restored).toEqual(full);
  });

  it('snapshotEvery writes a snapshot once a read folded that many records', async () => {
    const log = new MemoryLog();
    const laser = await client(log);
    const conversation = ConversationId.new();
    const bridge = new AguiBridge(laser, { snapshotEvery: 10 });
    await writeAnswer(laser, bridge, conversation);
    await bridge.aguiEvents(conversation);
    const described = await log.describeTopic({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC });
    expect(described.partitions[0]?.nextOffset).toBe(1n);
    await bridge.aguiEvents(conversation);
    expect((await log.describeTopic({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC })).partitions[0]?.nextOffset).toBe(1n);
    expect(() => new AguiBridge(laser, { snapshotEvery: 0 })).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });

  it('a snapshotEvery write the log refuses is reported and the read still answers', async () => {
    const log = new MemoryLog();
    const laser = await client(log);
    const conversation = ConversationId.new();
    await writeAnswer(laser, new AguiBridge(laser), conversation);
    const refusing = new Proxy(log, {
      get(target, key) {
        if (key === 'ensureTopic') return async () => Promise.reject(new AgdxError('rejected', 'no new topics here'));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const errors: CodecError[] = [];
    const bridge = new AguiBridge(AgdxClient.from(refusing, { stream: 'demo' }), { snapshotEvery: 1, onError: (e) => void errors.push(e) });
    expect(await bridge.aguiEvents(conversation)).toEqual(await fullFold(laser, conversation));
    expect(errors.map((e) => [e.message, AgdxError.is(e.cause, 'rejected')])).toEqual([['an AG-UI fold snapshot could not be written', true]]);
  });

  describe('a snapshot that cannot be used is reported and the log is read from the start', () => {
    async function attempt(setup: (log: MemoryLog, laser: AgdxClient, conversation: ConversationId) => Promise<AgdxClient | void>) {
      const log = new MemoryLog();
      const laser = await client(log);
      const conversation = ConversationId.new();
      await writeAnswer(laser, new AguiBridge(laser), conversation);
      const reader = (await setup(log, laser, conversation)) ?? laser;
      await writeAnswer(laser, new AguiBridge(laser), conversation);
      const errors: CodecError[] = [];
      const events = await new AguiBridge(reader, { onError: (e) => void errors.push(e) }).aguiEvents(conversation);
      expect(events).toEqual(await fullFold(reader, conversation));
      return rejections(errors);
    }

    async function forge(log: MemoryLog, conversation: ConversationId, payload: Uint8Array, headers: Record<string, string> = {}): Promise<void> {
      const text = (v: string) => ({ kind: 'string' as const, value: utf8.encode(v) });
      await log.ensureTopic({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC }, { partitions: 1 });
      const all = { [FOLD_HEADER]: 'agui', [FOLD_STREAM_HEADER]: 'demo', [FOLD_TOPIC_HEADER]: AgentTopic.Sessions, [FOLD_CONVERSATION_HEADER]: conversation.toString(), ...headers };
      await log.append({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC, records: [{ headers: new Map(Object.entries(all).map(([k, v]) => [k, text(v)])), payload }], routing: { partition: 0 } });
    }

    it('corrupt: random bytes, a truncated capsule, a capsule with a tampered replay', async () => {
      expect(await attempt((log, _l, c) => forge(log, c, utf8.encode('not a snapshot')))).toEqual(['corrupt']);
      expect(
        await attempt(async (log, laser, c) => {
          await new AguiBridge(laser).snapshot(c);
          const [good] = await log.read({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC, partition: 0, offset: 0n, maxCount: 1 });
          await forge(log, c, good!.payload.subarray(0, good!.payload.length - 7));
        }),
      ).toEqual(['corrupt']);
      expect(
        await attempt(async (log, laser, c) => {
          await new AguiBridge(laser).snapshot(c);
          const [good] = await log.read({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC, partition: 0, offset: 0n, maxCount: 1 });
          // the replay JSON claims an event no AG-UI schema allows, same length so the CBOR still decodes
          const text = new TextDecoder().decode(good!.payload).replace('"RUN_STARTED"', '"RUN_STARTEX"');
          await forge(log, c, utf8.encode(text));
        }),
      ).toEqual(['corrupt']);
    });

    it('none: a record whose headers name the stream, topic or conversation with a leading U+FEFF is not this conversation’s snapshot', async () => {
      for (const header of [FOLD_STREAM_HEADER, FOLD_TOPIC_HEADER, FOLD_CONVERSATION_HEADER]) {
        // were the mark dropped, the forged record would be taken and refused as corrupt
        expect(await attempt((log, _l, c) => forge(log, c, utf8.encode('not a snapshot'), { [header]: `\ufeff${header === FOLD_STREAM_HEADER ? 'demo' : header === FOLD_TOPIC_HEADER ? AgentTopic.Sessions : c.toString()}` }))).toEqual([]);
      }
    });

    it('another conversation’s capsule under this conversation’s headers', async () => {
      expect(
        await attempt(async (log, laser, c) => {
          const other = ConversationId.new();
          await writeAnswer(laser, new AguiBridge(laser), other);
          await new AguiBridge(laser).snapshot(other);
          const [good] = await log.read({ stream: 'demo', topic: AGUI_SNAPSHOT_TOPIC, partition: 0, offset: 0n, maxCount: 1 });
          await forge(log, c, good!.payload);
        }),
      ).toEqual(['corrupt']);
    });

    it('another layout', async () => {
      expect(
        await attempt(async (log, laser, c) => {
          await new AguiBridge(laser).snapshot(c);
          // a layout the stream's (shared) declaration agrees with, which the snapshot does not record
          return AgdxClient.from(log, { stream: 'demo', layout: { kind: 'singlePartition' } });
        }),
      ).toEqual(['layout']);
    });

    it('a topic deleted and recreated since the snapshot', async () => {
      expect(
        await attempt(async (log, laser, c) => {
          await new AguiBridge(laser).snapshot(c);
          await log.deleteTopic({ stream: 'demo', topic: AgentTopic.Sessions });
          await laser.bootstrap(4);
          // the same number of records again, so only the generation tells the logs apart
          await writeAnswer(laser, new AguiBridge(laser), c);
        }),
      ).toEqual(['generation']);
    });

    it('resume offsets beyond the partition’s end', async () => {
      const log = new MemoryLog();
      const laser = await client(log);
      const conversation = ConversationId.new();
      await writeAnswer(laser, new AguiBridge(laser), conversation);
      await writeAnswer(laser, new AguiBridge(laser), conversation);
      await new AguiBridge(laser).snapshot(conversation);
      // the same topic generation, but the reader sees partitions ending before the snapshot's offsets
      const errors: CodecError[] = [];
      const truncated = new Proxy(log, {
        get(target, key) {
          if (key === 'describeTopic') {
            return async (...args: Parameters<typeof log.describeTopic>) => {
              const d = await log.describeTopic(...args);
              return args[0].topic === AgentTopic.Sessions ? { ...d, partitions: d.partitions.map((p) => ({ ...p, nextOffset: p.nextOffset / 2n })) } : d;
            };
          }
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const reader = AgdxClient.from(truncated, { stream: 'demo' });
      await new AguiBridge(reader, { onError: (e) => void errors.push(e) }).aguiEvents(conversation);
      expect(rejections(errors)).toEqual(['beyond-end']);
      expect(AgdxError.is(errors[0]?.cause, 'conflict')).toBe(true);
    });
  });
});
