import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, LayoutMismatchError, type StreamLayout } from '@agdx/agents';
import { MemoryLog, partitionForKey } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { sessions } from '@agdx/sessions';

const text = new TextEncoder();
const PARTITIONS = 4;
const planner = AgentId.parse('planner');
const model = AgentId.parse('model');

async function layoutNamed(name: string, conversation: ConversationId): Promise<StreamLayout> {
  const home = await partitionForKey(conversation.toString(), PARTITIONS);
  switch (name) {
    case 'perAgentTopic':
      return { kind: 'perAgentTopic', topics: new Map([[model.value, 'agent.model']]) };
    case 'perAgentPartition':
      return { kind: 'perAgentPartition', partitions: new Map([[model.value, (home + 1) % PARTITIONS]]) };
    case 'singlePartition':
      return { kind: 'singlePartition' };
    default:
      return { kind: 'shared' };
  }
}

describe.each(['shared', 'perAgentTopic', 'perAgentPartition', 'singlePartition'])('session reads under the %s layout', (name) => {
  it('count a model request sent to a declared agent and show it in the timeline', async () => {
    const factory0 = ConversationId.new();
    const layout = await layoutNamed(name, factory0);
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout });
    await laser.bootstrap(PARTITIONS);
    const factory = sessions(laser);
    const session = factory.open(factory0);
    await session.lifecycle.begin({ agent: planner });
    const correlation = MintUlid.mint(CorrelationId);
    await laser.agdx(AgentTopic.Sessions, planner, session.conversation).command(correlation, text.encode('{"prompt":"hi"}')).withOperation('chat').withTarget(model).send();
    await laser.agdx(AgentTopic.Sessions, model, session.conversation).respond(correlation, text.encode('{"text":"hello"}')).withOperation('chat').withTarget(planner).send();
    await session.lifecycle.end();

    const info = await sessions(laser).get(session.conversation);
    expect(info?.modelCalls).toBe(1n);
    const types = (await sessions(laser).events(session.conversation)).items.map((e) => e.display);
    expect(types).toContain('model.request');
    expect(types).toContain('model.response');
    expect(types.indexOf('model.request')).toBeLessThan(types.indexOf('model.response'));
    expect(info?.status).toBe('completed');
  });
});

describe('session reads on a log written with another layout', () => {
  async function sharedLog(): Promise<{ log: MemoryLog; conversation: ConversationId }> {
    const log = new MemoryLog();
    const writer = AgdxClient.from(log, { stream: 'demo' });
    await writer.bootstrap(PARTITIONS);
    const session = sessions(writer).open(ConversationId.new());
    await session.lifecycle.begin({ agent: planner });
    await session.lifecycle.end();
    return { log, conversation: session.conversation };
  }

  it('a declared per-agent topic the log does not have is a LayoutMismatchError, not a read without its records', async () => {
    const { log, conversation } = await sharedLog();
    const reader = AgdxClient.from(log, { stream: 'demo', layout: { kind: 'perAgentTopic', topics: new Map([[model.value, 'agent.model']]) } });
    const failure = await sessions(reader).get(conversation).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LayoutMismatchError);
    expect((failure as LayoutMismatchError).context?.['topic']).toBe('agent.model');
    await expect(sessions(reader).list()).rejects.toBeInstanceOf(LayoutMismatchError);
  });

  it('a declared partition beyond the lane is a LayoutMismatchError', async () => {
    const { log, conversation } = await sharedLog();
    const reader = AgdxClient.from(log, { stream: 'demo', layout: { kind: 'perAgentPartition', partitions: new Map([[model.value, PARTITIONS]]) } });
    const failure = await sessions(reader).get(conversation).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LayoutMismatchError);
    expect((failure as LayoutMismatchError).context?.['partition']).toBe(PARTITIONS);
  });

  it('an empty log is no mismatch: nothing was written with any layout yet', async () => {
    const reader = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout: { kind: 'perAgentTopic', topics: new Map([[model.value, 'agent.model']]) } });
    expect(await sessions(reader).get(ConversationId.new())).toBeUndefined();
  });
});

describe('session reads of a log whose bootstrap declared another layout', () => {
  const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([[model.value, 'agent.model']]) };

  /** A model call written under `layout` (the writer bootstraps, which declares the layout). */
  async function written(layout: StreamLayout): Promise<{ log: MemoryLog; conversation: ConversationId }> {
    const log = new MemoryLog();
    const writer = AgdxClient.from(log, { stream: 'demo', layout });
    await writer.bootstrap(PARTITIONS);
    const session = sessions(writer).open(ConversationId.new());
    await session.lifecycle.begin({ agent: planner });
    const correlation = MintUlid.mint(CorrelationId);
    await writer.agdx(AgentTopic.Sessions, planner, session.conversation).command(correlation, text.encode('{"prompt":"hi"}')).withOperation('chat').withTarget(model).send();
    await writer.agdx(AgentTopic.Sessions, model, session.conversation).respond(correlation, text.encode('{"text":"hello"}')).withOperation('chat').withTarget(planner).send();
    await session.lifecycle.end();
    return { log, conversation: session.conversation };
  }

  it('a shared reader of a topic-per-agent log gets LayoutMismatchError naming both layouts from every read, instead of modelCalls 0', async () => {
    const { log, conversation } = await written(byTopic);
    const factory = sessions(AgdxClient.from(log, { stream: 'demo' }));
    const reads: [string, () => Promise<unknown>][] = [
      ['get', () => factory.get(conversation)],
      ['list', () => factory.list()],
      ['events', () => factory.events(conversation)],
      ['state', () => factory.state(conversation)],
      ['links', () => factory.links(conversation)],
      ['watch', () => factory.watch(10).next()],
    ];
    for (const [name, read] of reads) {
      const failure = await read().then(() => undefined, (e: unknown) => e);
      expect(failure, name).toBeInstanceOf(LayoutMismatchError);
      expect((failure as LayoutMismatchError).message, name).toMatch(/declares the perAgentTopic \(model -> agent\.model\) layout, but this reader uses the shared layout/);
      expect((failure as LayoutMismatchError).context, name).toMatchObject({ stream: 'demo', declaredLayout: 'perAgentTopic', readerLayout: 'shared' });
    }
  });

  it('a reader that folded before the stream was re-declared refuses its next read', async () => {
    const { log, conversation } = await written({ kind: 'shared' });
    const factory = sessions(AgdxClient.from(log, { stream: 'demo' }));
    expect((await factory.get(conversation))?.modelCalls).toBe(1n);
    await AgdxClient.from(log, { stream: 'demo', layout: byTopic }).bootstrap(PARTITIONS, { replaceLayout: true });
    await expect(factory.get(conversation)).rejects.toBeInstanceOf(LayoutMismatchError);
  });

  it('the writers\' own layout (or shared against single partition) reads without alarm', async () => {
    const { log, conversation } = await written(byTopic);
    expect((await sessions(AgdxClient.from(log, { stream: 'demo', layout: byTopic })).get(conversation))?.modelCalls).toBe(1n);
    const single = await written({ kind: 'singlePartition' });
    expect((await sessions(AgdxClient.from(single.log, { stream: 'demo' })).get(single.conversation))?.modelCalls).toBe(1n);
  });
});
