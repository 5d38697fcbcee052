import { AgdxClient, AgentTopic, BOOTSTRAP_TOPICS, LayoutMismatchError, type StreamLayout } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog, partitionForKey } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid, TaskState } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { sseBlocks, startServer } from './support/server.js';

const text = new TextEncoder();
const PARTITIONS = 4;
const assistant = AgentId.new('assistant');
const user = AgentId.new('user');

/** The four stream layouts, with `user` declared; a declared partition off the conversation's own. */
async function layouts(conversation: ConversationId): Promise<[string, StreamLayout][]> {
  const home = await partitionForKey(conversation.toString(), PARTITIONS);
  return [
    ['shared', { kind: 'shared' }],
    ['perAgentTopic', { kind: 'perAgentTopic', topics: new Map([[user.value, 'agent.user']]) }],
    ['perAgentPartition', { kind: 'perAgentPartition', partitions: new Map([[user.value, (home + 1) % PARTITIONS]]) }],
    ['singlePartition', { kind: 'singlePartition' }],
  ];
}

/** A task run of `assistant` in `conversation`: a chat stream of two chunks addressed to `user`, between Submitted and Completed. */
async function writeRun(laser: AgdxClient, conversation: ConversationId): Promise<void> {
    const correlation = MintUlid.mint(CorrelationId);
    const send = laser.agdx(AgentTopic.Sessions, assistant, conversation);
    await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Submitted).send();
    const chat = send.stream(correlation, 'chat').withTarget(user);
    await chat.write(text.encode('Hello '));
    await chat.write(text.encode('there.'));
    await chat.finish('stop');
    await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Completed).send();
}

describe.each(['shared', 'perAgentTopic', 'perAgentPartition', 'singlePartition'])('AguiBridge.aguiEvents under the %s layout', (name) => {
  it('returns the events of a chunk stream addressed to a declared agent, framed by the run', async () => {
    const conversation = ConversationId.new();
    const layout = (await layouts(conversation)).find(([n]) => n === name)![1];
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout });
    await laser.bootstrap(PARTITIONS);
    await writeRun(laser, conversation);
    // another conversation's stream to the same agent never leaks in
    await laser.agdx(AgentTopic.Sessions, assistant, ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').withTarget(user).write(text.encode('other'));

    const events = await new AguiBridge(laser).aguiEvents(conversation);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as { delta: string }).delta).join('')).toBe('Hello there.');
  });
});

describe.each(['shared', 'perAgentTopic', 'perAgentPartition', 'singlePartition'])('the live SSE endpoint under the %s layout', (name) => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('follows a chunk stream addressed to a declared agent, and resumes after the id it was given', async () => {
    const conversation = ConversationId.new();
    const layout = (await layouts(conversation)).find(([n]) => n === name)![1];
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout });
    await laser.bootstrap(PARTITIONS);
    const bridge = new AguiBridge(laser);
    const server = await startServer(bridge.handler());
    closers.push(server.close);
    const abort = new AbortController();
    closers.push(async () => abort.abort());
    const response = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: abort.signal });
    expect(response.status).toBe(200);
    const blocks = sseBlocks(response);
    await writeRun(laser, conversation);
    const seen: { type: string; id: string | undefined; delta?: string }[] = [];
    while (seen.length < 6) {
      const next = await blocks.next();
      if (next.done === true) throw new Error(`stream ended after ${seen.length} events`);
      if (next.value.data !== undefined) seen.push({ ...(JSON.parse(next.value.data) as { type: string; delta?: string }), id: next.value.id });
    }
    abort.abort();
    expect(seen.map((e) => e.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    // resume after the first chunk: exactly the events after it come again
    const firstChunkId = seen[2]?.id;
    expect(firstChunkId).toBeDefined();
    const again = new AbortController();
    closers.push(async () => again.abort());
    const resumed = await fetch(`${server.url}/agui?threadId=${conversation}`, { headers: { 'last-event-id': firstChunkId as string }, signal: again.signal });
    expect(resumed.status).toBe(200);
    const rest: string[] = [];
    const more = sseBlocks(resumed);
    while (rest.length < 3) {
      const next = await more.next();
      if (next.done === true) throw new Error('resumed stream ended early');
      if (next.value.data !== undefined) rest.push((JSON.parse(next.value.data) as { delta?: string; type: string }).delta ?? (JSON.parse(next.value.data) as { type: string }).type);
    }
    again.abort();
    expect(rest).toEqual(['there.', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    // an id naming other places than this conversation's is refused
    const wrong = await fetch(`${server.url}/agui?threadId=${conversation}`, { headers: { 'last-event-id': '0:1,0:1,0:1,0:1,0:1' } });
    expect(wrong.status).toBe(400);
    await wrong.body?.cancel();
  });
});

describe('the live SSE endpoint and a log written with another layout', () => {
  it('answers 409 layout-mismatch when a declared per-agent topic does not exist', async () => {
    const log = new MemoryLog();
    await AgdxClient.from(log, { stream: 'demo' }).bootstrap(PARTITIONS);
    const laser = AgdxClient.from(log, { stream: 'demo', layout: { kind: 'perAgentTopic', topics: new Map([[user.value, 'agent.user']]) } });
    const response = await new AguiBridge(laser).handler()(new Request(`http://x/agui?threadId=${ConversationId.new()}`));
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: { kind: string } }).error.kind).toBe('layout-mismatch');
  });
});

describe('AguiBridge.aguiEvents and a log written with another layout', () => {
  it('says LayoutMismatchError when a chunk for a declared agent sits on the conversation partition', async () => {
    const log = new MemoryLog();
    const conversation = ConversationId.new();
    // written under the shared layout on a stream set up without bootstrap (so no layout is
    // declared): the chunk stream to `user` stays on the conversation's partition
    const writer = AgdxClient.from(log, { stream: 'demo' });
    await log.ensureStream('demo');
    for (const topic of [...BOOTSTRAP_TOPICS, 'agent.user']) await log.ensureTopic({ stream: 'demo', topic }, { partitions: PARTITIONS });
    const chat = writer.agdx(AgentTopic.Sessions, assistant, conversation).stream(MintUlid.mint(CorrelationId), 'chat').withTarget(user);
    await chat.write(text.encode('Hello'));
    for (const [name, layout] of (await layouts(conversation)).filter(([n]) => n === 'perAgentTopic' || n === 'perAgentPartition')) {
      const reader = AgdxClient.from(log, { stream: 'demo', layout });
      const bridge = new AguiBridge(reader);
      // twice on one bridge: a failed replay keeps nothing, so the second call reads from 0 and fails alike
      for (let call = 0; call < 2; call++) {
        const failure = await bridge.aguiEvents(conversation).then(() => undefined, (error: unknown) => error);
        expect(failure, name).toBeInstanceOf(LayoutMismatchError);
        expect((failure as LayoutMismatchError).context, name).toMatchObject({ agent: user.value, topic: AgentTopic.Sessions });
      }
    }
    // the layout it was written with reads it
    expect((await new AguiBridge(writer).aguiEvents(conversation)).some((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toBe(true);
  });
});

describe('AG-UI readers of a stream whose bootstrap declared another layout', () => {
  it('aguiEvents and the live endpoint name both layouts instead of answering without the agent\'s records', async () => {
    const log = new MemoryLog();
    const conversation = ConversationId.new();
    const byTopic = (await layouts(conversation)).find(([n]) => n === 'perAgentTopic')![1];
    const writer = AgdxClient.from(log, { stream: 'demo', layout: byTopic });
    await writer.bootstrap(PARTITIONS);
    await writeRun(writer, conversation);
    const bridge = new AguiBridge(AgdxClient.from(log, { stream: 'demo' }));
    const failure = await bridge.aguiEvents(conversation).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(LayoutMismatchError);
    expect((failure as LayoutMismatchError).message).toMatch(/declares the perAgentTopic \(user -> agent\.user\) layout, but this reader uses the shared layout/);
    const response = await bridge.handler()(new Request(`http://x/agui?threadId=${conversation}`));
    expect(response.status).toBe(409);
    const body = (await response.json()) as { error: { kind: string; message: string } };
    expect(body.error.kind).toBe('layout-mismatch');
    expect(body.error.message).toContain('perAgentTopic');
    // the writers' layout reads the run
    expect((await new AguiBridge(writer).aguiEvents(conversation)).map((e) => e.type)).toContain('TEXT_MESSAGE_CONTENT');
  });
});
