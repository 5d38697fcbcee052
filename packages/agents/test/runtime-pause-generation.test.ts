import { AgdxClient, AgentTopic, SkippedRecordError } from '@agdx/agents';
import type { LogTransport, ReadRequest } from '@agdx/transport';
import { AgentId, ConversationId, decodeSessionParking } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { eventually, harness, STREAM } from './support-runtime/harness.js';
import { commandsWorker, control, lane, pauseAndPark, work } from './support-runtime/pause.js';

const text = new TextEncoder();
const worker = AgentId.new('worker');

describe('pause parking names the source topic generation (seed 000)', () => {
  it('records the topic creation time, and a held record whose topic was recreated is reported, not handled', async () => {
    const h = await harness();
    const handled: string[] = [];
    const spawn = () => commandsWorker(h.connect, worker, handled);
    const first = spawn();
    await first.ready();
    const session = ConversationId.new();
    await pauseAndPark(h.laser, h.log, session, worker, 'held', () => first.stats.parked);
    await first.shutdown();

    const before = (await h.log.describeTopic({ stream: STREAM, topic: AgentTopic.Commands })).createdAtMicros;
    expect(before).toBeTypeOf('bigint');
    const parked = (await lane(h.log, session)).find((e) => e.operation === 'session_parked');
    const source = decodeSessionParking(parked!.body).source;
    expect(source.kind === 'message' ? source.generation : undefined).toBe(before);

    // the topic is deleted and created again; another session's work takes offset 0
    await h.log.deleteTopic({ stream: STREAM, topic: AgentTopic.Commands });
    const recreated = await h.log.ensureTopic({ stream: STREAM, topic: AgentTopic.Commands }, { partitions: 1 });
    expect(recreated.createdAtMicros).not.toBe(before);
    await work(h.laser, ConversationId.new(), 'impostor');

    const second = spawn();
    await second.ready();
    await eventually(() => handled.includes('impostor'), 5_000, 'the new session\'s work');
    await control(h.laser, session, 'session_resume', text.encode('{}'));
    await eventually(() => second.errors.some((e) => e instanceof SkippedRecordError && e.reason === 'stale-source'), 5_000, 'the stale-source report');
    const stale = second.errors.find((e): e is SkippedRecordError => e instanceof SkippedRecordError && e.reason === 'stale-source')!;
    expect(stale.kind).toBe('stale-session');
    expect(stale.position).toMatchObject({ topic: AgentTopic.Commands, partition: 0, offset: 0n });
    await second.shutdown();
    // the record now at the parked offset belongs to another session: it ran once, as its own work
    expect(handled).toEqual(['impostor']);
  });

  it('a held record whose topic was deleted is reported as a stale source', async () => {
    const h = await harness();
    const handled: string[] = [];
    await using agent = commandsWorker(h.connect, worker, handled);
    await agent.ready();
    const session = ConversationId.new();
    await pauseAndPark(h.laser, h.log, session, worker, 'held', () => agent.stats.parked);
    await h.log.deleteTopic({ stream: STREAM, topic: AgentTopic.Commands });
    await control(h.laser, session, 'session_resume', text.encode('{}'));
    await eventually(() => agent.errors.some((e) => e instanceof SkippedRecordError && e.reason === 'stale-source'), 5_000, 'the stale-source report');
    expect(handled).toEqual([]);
  });

  it('a held record its source no longer holds is reported as a typed stale source, not a plain Error', async () => {
    const h = await harness();
    const handled: string[] = [];
    // the worker's own connection, on which the parked record can be made to vanish (as retention would)
    const connection = h.log.connect();
    let vanished = false;
    const transport = new Proxy(connection, {
      get(target, prop) {
        if (prop === 'read') return async (request: ReadRequest) => (vanished && request.topic === AgentTopic.Commands && request.maxCount === 1 ? [] : target.read(request));
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as LogTransport;
    await using agent = commandsWorker(() => AgdxClient.from(transport, { stream: STREAM }), worker, handled);
    await agent.ready();
    const session = ConversationId.new();
    await pauseAndPark(h.laser, h.log, session, worker, 'held', () => agent.stats.parked);
    vanished = true;
    await control(h.laser, session, 'session_resume', text.encode('{}'));
    await eventually(() => agent.errors.some((e) => e instanceof SkippedRecordError && e.reason === 'stale-source'), 5_000, 'the stale-source report');
    const gone = agent.errors.find((e): e is SkippedRecordError => e instanceof SkippedRecordError)!;
    expect(gone.message).toContain('gone from its source');
    expect(gone.kind).toBe('stale-session');
    expect(gone.position).toMatchObject({ topic: AgentTopic.Commands, partition: 0, offset: 0n });
    expect(agent.errors.every((e) => e instanceof SkippedRecordError)).toBe(true);
    expect(handled).toEqual([]);
  });
});
