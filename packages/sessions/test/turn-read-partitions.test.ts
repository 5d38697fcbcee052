/**
 * Turn reads ask the stream layout where the conversation's records are: on a topic of many
 * partitions, a context, turn, state or replay read touches only the conversation's own partition
 * of each turn topic, and answers what a read of every partition answers.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { atCheckpointBounds, Checkpoint, readConversation, SessionConfig, sessions, sessionTurnText, sinceCheckpointBounds, type SessionTurn } from '@agdx/sessions';
import { AgentId, CorrelationId, MintUlid } from '@agdx/wire';
import { MemoryLog, partitionForKey, type LogTransport, type ReadRequest } from '@agdx/transport';

const PARTITIONS = 16;

/** A MemoryLog that records which partitions each read asked for, and how many records it returned. */
function partitionCountingLog(): { log: MemoryLog; transport: LogTransport; touched: Map<string, Set<number>>; records: () => number; reset: () => void } {
  const log = new MemoryLog();
  const touched = new Map<string, Set<number>>();
  let records = 0;
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          const out = await target.read(request);
          let set = touched.get(request.topic);
          if (set === undefined) touched.set(request.topic, (set = new Set()));
          set.add(request.partition);
          records += out.length;
          return out;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return {
    log,
    transport,
    touched,
    records: () => records,
    reset: () => {
      touched.clear();
      records = 0;
    },
  };
}

const texts = (turns: readonly SessionTurn[]): string[] => turns.map((t) => `${t.kind}:${sessionTurnText(t)}`);

describe('turn reads on a many-partition topic', () => {
  it('read only the partition the layout puts the conversation on, and answer what every partition answers', async () => {
    const counting = partitionCountingLog();
    const laser = AgdxClient.from(counting.transport, { stream: 'demo' });
    await laser.bootstrap(PARTITIONS);
    const factory = sessions(laser);
    const session = factory.create('located');
    const home = await partitionForKey(session.conversation.toString(), PARTITIONS);
    const topics = factory.config.topics();
    // 160 other conversations fill every partition of every turn topic
    for (let n = 0; n < 160; n++) {
      const other = factory.create(`other-${n}`);
      for (const kind of ['instruction', 'tool.call', 'model.response'] as const) await other.append(kind, `noise ${n}`);
    }
    await session.append('instruction', 'one');
    await session.append('tool.call', 'two');
    const checkpoint = await session.checkpoint();
    await session.append('tool.result', 'three');
    await session.append('model.response', 'four');
    // the noise is on every partition, so a read of every partition would touch all sixteen
    expect((await counting.log.describeTopic({ stream: 'demo', topic: AgentTopic.Commands })).partitions.every((p) => p.nextOffset > 0n)).toBe(true);

    const everywhere = async (bounds: Parameters<typeof readConversation>[4]): Promise<string[]> =>
      texts(
        (await readConversation(counting.log, 'demo', topics, session.conversation, bounds)).map((message) => ({ kind: factory.config.kindFor(message.topic)!, message })),
      );
    const all = ['instruction:one', 'tool.call:two', 'tool.result:three', 'model.response:four'];
    const expectOnlyHome = (): void => {
      expect(counting.touched.size).toBeGreaterThan(0);
      for (const [topic, partitions] of counting.touched) expect([topic, [...partitions]]).toEqual([topic, [home]]);
    };

    counting.reset();
    expect(texts(await session.context())).toEqual(all);
    expectOnlyHome();
    counting.reset();
    expect(texts(await session.turnsAt(checkpoint))).toEqual(all.slice(0, 2));
    expectOnlyHome();
    counting.reset();
    expect(texts(await session.turnsSince(checkpoint))).toEqual(all.slice(2));
    expectOnlyHome();
    counting.reset();
    expect(await session.stateAt(checkpoint, [] as string[], (s, t) => [...s, ...texts([t])])).toEqual(all.slice(0, 2));
    expectOnlyHome();
    counting.reset();
    expect(await session.replay(checkpoint, [] as string[], (s, t) => [...s, ...texts([t])])).toEqual(all.slice(2));
    expectOnlyHome();
    // the records read are the home partitions' only: a sixteenth or so of the log
    const homeRecords = (await Promise.all(topics.map(async (topic) => (await counting.log.describeTopic({ stream: 'demo', topic })).partitions[home]!.nextOffset))).reduce((a, b) => a + b, 0n);
    counting.reset();
    await session.turnsSince(new Checkpoint());
    expect(BigInt(counting.records())).toBe(homeRecords);

    // the same answers as a read of every partition
    expect(await everywhere(atCheckpointBounds(checkpoint))).toEqual(all.slice(0, 2));
    expect(await everywhere(sinceCheckpointBounds(checkpoint))).toEqual(all.slice(2));
  });

  it('a turn topic a partition-per-agent layout redirects is read on the home and the declared agent partitions', async () => {
    const counting = partitionCountingLog();
    const layout = { kind: 'perAgentPartition', partitions: new Map([['worker', 5]]) } as const;
    const laser = AgdxClient.from(counting.transport, { stream: 'demo', layout });
    await laser.bootstrap(8);
    const factory = sessions(laser, new SessionConfig().topic('instruction', AgentTopic.Sessions));
    const session = factory.create('redirected');
    const home = await partitionForKey(session.conversation.toString(), 8);
    await session.append('instruction', 'hello');
    // a command to the declared worker in this conversation: the layout puts it on partition 5
    const sent = await laser.agdx(AgentTopic.Sessions, AgentId.parse('planner'), session.conversation).command(MintUlid.mint(CorrelationId), new TextEncoder().encode('work')).withTarget(AgentId.parse('worker')).sendReceipt();
    expect(sent.position.partition).toBe(5);
    for (let partition = 0; partition < 8; partition++) await counting.log.append({ stream: 'demo', topic: AgentTopic.Sessions, routing: { partition }, records: [{ payload: new Uint8Array([1]) }] });
    counting.reset();
    expect(texts(await session.turns())).toEqual(['instruction:hello', 'instruction:work']);
    expect([...(counting.touched.get(AgentTopic.Sessions) ?? [])].sort()).toEqual([...new Set([home, 5])].sort());
  });

  it('without a layout, readConversation reads every partition, as before', async () => {
    const counting = partitionCountingLog();
    const laser = AgdxClient.from(counting.transport, { stream: 'demo' });
    await laser.bootstrap(4);
    const session = sessions(laser).create('unlocated');
    await session.append('instruction', 'x');
    for (let partition = 0; partition < 4; partition++) await counting.log.append({ stream: 'demo', topic: AgentTopic.Commands, routing: { partition }, records: [{ payload: new Uint8Array([1]) }] });
    counting.reset();
    await readConversation(counting.transport, 'demo', [AgentTopic.Commands], session.conversation, sinceCheckpointBounds(new Checkpoint()));
    expect([...(counting.touched.get(AgentTopic.Commands) ?? [])].sort()).toEqual([0, 1, 2, 3]);
  });
});
