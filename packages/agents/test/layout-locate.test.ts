import { AgentTopic, keyedPlacementMismatch, LayoutMismatchError, layoutTopics, locatePartitions, locateRecords, recordPlacementMismatch, routeRecord, type StreamLayout } from '@agdx/agents';
import { MemoryLog, partitionForKey } from '@agdx/transport';
import { AgdxError, ConversationId, HeaderName, stringHeader, uint128Header, type HeaderValue } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

const conversation = ConversationId.new().toString();
const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model'], ['tools', 'agent.tools']]) };
const byPartition: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([['model', 2], ['tools', 2], ['ui', 9]]) };

describe('locateRecords: where a conversation\'s records live', () => {
  it('gives writers exactly one route, the one routeRecord appends to', () => {
    expect(locateRecords(byTopic, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind: 'command' })).toEqual([{ topic: 'agent.model', routing: { key: conversation } }]);
    expect(locateRecords(byPartition, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind: 'chunk' })).toEqual([{ topic: AgentTopic.Sessions, routing: { partition: 2 } }]);
    // lifecycle and state stay home; so do undeclared agents and other topics
    expect(locateRecords(byPartition, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind: 'status' })).toEqual([{ topic: AgentTopic.Sessions, routing: { key: conversation } }]);
    expect(locateRecords(byTopic, { topic: AgentTopic.Sessions, conversation, agent: 'nobody', kind: 'command' })).toEqual([{ topic: AgentTopic.Sessions, routing: { key: conversation } }]);
    expect(locateRecords(byTopic, { topic: AgentTopic.Streams, conversation, agent: 'model', kind: 'chunk' })).toEqual([{ topic: AgentTopic.Streams, routing: { key: conversation } }]);
    // plain records follow a declared topic but not a declared partition
    expect(locateRecords(byTopic, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind: 'plain' })[0]?.topic).toBe('agent.model');
    expect(locateRecords(byPartition, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind: 'plain' })).toEqual([{ topic: AgentTopic.Sessions, routing: { key: conversation } }]);
    for (const layout of [byTopic, byPartition, { kind: 'shared' } as const, { kind: 'singlePartition' } as const]) {
      for (const kind of ['command', 'response', 'error', 'chunk', 'event', 'status', 'plain'] as const) {
        expect([routeRecord(layout, AgentTopic.Sessions, kind, 'model', conversation)]).toEqual(locateRecords(layout, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind }));
      }
    }
  });

  it('gives readers every place, home first, without repeats', () => {
    expect(locateRecords(byTopic, { topic: AgentTopic.Sessions, conversation })).toEqual([
      { topic: AgentTopic.Sessions, routing: { key: conversation } },
      { topic: 'agent.model', routing: { key: conversation } },
      { topic: 'agent.tools', routing: { key: conversation } },
    ]);
    expect(locateRecords(byPartition, { topic: AgentTopic.Sessions, conversation })).toEqual([
      { topic: AgentTopic.Sessions, routing: { key: conversation } },
      { topic: AgentTopic.Sessions, routing: { partition: 2 } },
      { topic: AgentTopic.Sessions, routing: { partition: 9 } },
    ]);
    expect(locateRecords(byPartition, { topic: AgentTopic.Sessions, conversation, kind: 'status' })).toHaveLength(1);
    expect(locateRecords({ kind: 'shared' }, { topic: AgentTopic.Sessions, conversation })).toEqual([{ topic: AgentTopic.Sessions, routing: { key: conversation } }]);
    expect(layoutTopics(byTopic, AgentTopic.Sessions)).toEqual([AgentTopic.Sessions, 'agent.model', 'agent.tools']);
    expect(layoutTopics(byTopic, AgentTopic.Memory)).toEqual([AgentTopic.Memory]);
    expect(() => locateRecords(byTopic, { topic: AgentTopic.Sessions, conversation: '' })).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });

  it('locatePartitions resolves keys to partitions and drops repeats', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: AgentTopic.Sessions }, { partitions: 4 });
    const home = await partitionForKey(conversation, 4);
    const layout: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([['a', home], ['b', (home + 1) % 4]]) };
    expect(await locatePartitions(log, 's', layout, { topic: AgentTopic.Sessions, conversation })).toEqual([
      { stream: 's', topic: AgentTopic.Sessions, partition: home },
      { stream: 's', topic: AgentTopic.Sessions, partition: (home + 1) % 4 },
    ]);
  });

  it('locatePartitions says the log was written with another layout instead of reading nothing', async () => {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: AgentTopic.Sessions }, { partitions: 4 });
    // a declared partition the topic lacks
    const beyond = await locatePartitions(log, 's', { kind: 'perAgentPartition', partitions: new Map([['c', 40]]) }, { topic: AgentTopic.Sessions, conversation }).catch((e: unknown) => e);
    expect(beyond).toBeInstanceOf(LayoutMismatchError);
    expect((beyond as LayoutMismatchError).kind).toBe('layout-mismatch');
    expect((beyond as LayoutMismatchError).context).toMatchObject({ topic: AgentTopic.Sessions, partition: 40, partitionCount: 4 });
    // a declared per-agent topic bootstrap never created
    const missing = await locatePartitions(log, 's', byTopic, { topic: AgentTopic.Sessions, conversation }).catch((e: unknown) => e);
    expect(AgdxError.is(missing, 'layout-mismatch' as never)).toBe(true);
    expect((missing as LayoutMismatchError).context).toMatchObject({ topic: 'agent.model' });
    // a missing stream stays not-found: nothing says another layout wrote it
    const noStream = await locatePartitions(log, 'nope', byTopic, { topic: AgentTopic.Sessions, conversation, agent: 'model', kind: 'command' }).catch((e: unknown) => e);
    expect(AgdxError.is(noStream, 'not-found')).toBe(true);
  });

  it('recordPlacementMismatch tells a record written under another layout from one where this layout puts it', () => {
    const at = { stream: 's', topic: AgentTopic.Sessions, partition: 1, offset: 5n };
    // a chunk for a declared agent on the conversation partition: only a shared writer puts it there
    const wrong = recordPlacementMismatch(byTopic, AgentTopic.Sessions, 1, { ...at, kind: 'chunk', target: 'model' });
    expect(wrong).toBeInstanceOf(LayoutMismatchError);
    expect(wrong?.context).toMatchObject({ agent: 'model', expectedTopic: 'agent.model', offset: 5n });
    expect(recordPlacementMismatch(byPartition, AgentTopic.Sessions, 1, { ...at, kind: 'command', target: 'model' })?.context).toMatchObject({ expectedPartition: 2 });
    // lifecycle, undeclared agents, the declared partition itself and the shared layout are all fine
    expect(recordPlacementMismatch(byTopic, AgentTopic.Sessions, 1, { ...at, kind: 'status', target: 'model' })).toBeUndefined();
    expect(recordPlacementMismatch(byTopic, AgentTopic.Sessions, 1, { ...at, kind: 'chunk', target: 'nobody' })).toBeUndefined();
    expect(recordPlacementMismatch(byPartition, AgentTopic.Sessions, 2, { ...at, partition: 2, kind: 'chunk', target: 'model' })).toBeUndefined();
    expect(recordPlacementMismatch({ kind: 'shared' }, AgentTopic.Sessions, 1, { ...at, kind: 'chunk', target: 'model' })).toBeUndefined();
    // records read elsewhere than the conversation partition are not judged
    expect(recordPlacementMismatch(byTopic, AgentTopic.Sessions, 0, { ...at, kind: 'chunk', target: 'model' })).toBeUndefined();
  });
});

describe('keyedPlacementMismatch: a keyed reader meets a record a partition-per-agent writer placed', () => {
  const shared: StreamLayout = { kind: 'shared' };
  async function record(conversationId: ConversationId, partitionOffset: number, to: string | undefined, conv: 'text' | 'uint128' = 'text') {
    const home = await partitionForKey(conversationId.toString(), 4);
    const headers = new Map<string, HeaderValue>([[HeaderName.ConversationId, conv === 'text' ? stringHeader(conversationId.toString()) : uint128Header(conversationId.toBigInt())]]);
    if (to !== undefined) headers.set(HeaderName.To, stringHeader(to));
    return { stream: 's', topic: AgentTopic.Sessions as string, partition: (home + partitionOffset) % 4, partitionCount: 4, offset: 7n, headers };
  }

  it('names an addressed record off its conversation\'s partition', async () => {
    const id = ConversationId.new();
    const error = await keyedPlacementMismatch(shared, await record(id, 1, 'model'));
    expect(error).toBeInstanceOf(LayoutMismatchError);
    expect(error?.context).toMatchObject({ topic: AgentTopic.Sessions, offset: 7n });
    expect(await keyedPlacementMismatch({ kind: 'singlePartition' }, await record(id, 2, 'model'))).toBeInstanceOf(LayoutMismatchError);
  });

  it('raises no alarm where a keyed writer could have put the record, or where it cannot tell', async () => {
    const id = ConversationId.new();
    expect(await keyedPlacementMismatch(shared, await record(id, 0, 'model'))).toBeUndefined();
    expect(await keyedPlacementMismatch(shared, await record(id, 1, undefined))).toBeUndefined();
    expect(await keyedPlacementMismatch(shared, await record(id, 1, '*'))).toBeUndefined();
    expect(await keyedPlacementMismatch(shared, await record(id, 1, 'model', 'uint128'))).toBeUndefined();
    expect(await keyedPlacementMismatch(shared, { ...(await record(id, 1, 'model')), topic: AgentTopic.Streams })).toBeUndefined();
    expect(await keyedPlacementMismatch(byPartition, await record(id, 1, 'model'))).toBeUndefined();
    expect(await keyedPlacementMismatch(shared, { ...(await record(id, 1, 'model')), partition: 0, partitionCount: 1 })).toBeUndefined();
  });
});
