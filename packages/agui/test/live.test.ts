import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge, parseEventId, type AguiEvent } from '@agdx/agui';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid, TaskState } from '@agdx/wire';
import { EventSchema } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { ANSWER_EVENT_TYPES, writeAnswer } from './support/scenario.js';
import { sleep, sseBlocks, startServer, type SseBlock } from './support/server.js';

const text = new TextEncoder();

/** A MemoryLog whose read and waitFor calls are counted (in flight and in total). */
function countingLog(): { transport: LogTransport; counts: { reads: number; waits: number; waiting: number } } {
  const log = new MemoryLog();
  const counts = { reads: 0, waits: 0, waiting: 0 };
  const transport = new Proxy(log, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === 'read') return (...args: Parameters<LogTransport['read']>) => (counts.reads++, target.read(...args));
      if (key === 'waitFor')
        return async (...args: Parameters<LogTransport['waitFor']>) => {
          counts.waits++;
          counts.waiting++;
          try {
            return await target.waitFor(...args);
          } finally {
            counts.waiting--;
          }
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { transport, counts };
}

async function setup(keepaliveMs?: number) {
  const { transport, counts } = countingLog();
  const laser = AgdxClient.from(transport, { stream: 'demo' });
  await laser.bootstrap(4);
  const bridge = new AguiBridge(laser);
  const server = await startServer(bridge.handler(keepaliveMs !== undefined ? { keepaliveMs } : {}));
  closers.push(server.close);
  return { laser, bridge, server, counts };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function take(blocks: AsyncGenerator<SseBlock>, count: number): Promise<{ events: AguiEvent[]; ids: (string | undefined)[] }> {
  const events: AguiEvent[] = [];
  const ids: (string | undefined)[] = [];
  while (events.length < count) {
    const next = await blocks.next();
    if (next.done === true) throw new Error(`stream ended after ${events.length} events`);
    if (next.value.data === undefined) continue;
    events.push(JSON.parse(next.value.data) as AguiEvent);
    ids.push(next.value.id);
  }
  return { events, ids };
}

describe('live SSE endpoint (GET, EventSource style)', () => {
  it('streams the conversation from the start and follows new records as they land', async () => {
    const { laser, bridge, server } = await setup();
    const conversation = ConversationId.new();
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const blocks = sseBlocks(response);
    // Records written after the client connected arrive live.
    const writing = writeAnswer(laser, bridge, conversation, () => sleep(2));
    const { events, ids } = await take(blocks, ANSWER_EVENT_TYPES.length);
    await writing;
    expect(events.map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
    for (const event of events) expect(EventSchema.safeParse(event).success).toBe(true);
    expect(events).toEqual(await bridge.aguiEvents(conversation));
    // Every event that ends a record's events carries its position; positions only grow.
    const positions = ids.filter((id): id is string => id !== undefined).map((id) => parseEventId(id));
    expect(positions.length).toBeGreaterThan(10);
    for (let i = 1; i < positions.length; i++) expect(positions[i]!.offset).toBeGreaterThan(positions[i - 1]!.offset);
    expect(ids.at(-1)).toBeDefined();
    abort.abort();
  });

  it('resumes after the Last-Event-ID position', async () => {
    const { laser, bridge, server } = await setup();
    const { conversation } = await writeAnswer(laser, bridge);
    const all = await bridge.aguiEvents(conversation);
    const stop = new AbortController();
    const first = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: stop.signal });
    const firstBlocks = sseBlocks(first);
    const head = await take(firstBlocks, 8); // up to the first tool argument chunk
    stop.abort();
    const lastId = head.ids.filter((id) => id !== undefined).at(-1)!;
    const delivered = head.ids.lastIndexOf(lastId) + 1;
    const stop2 = new AbortController();
    const resumed = await fetch(`${server.url}/agui?threadId=${conversation}`, { headers: { 'last-event-id': lastId }, signal: stop2.signal });
    const rest = await take(sseBlocks(resumed), all.length - delivered);
    expect([...head.events.slice(0, delivered), ...rest.events]).toEqual(all);
    // ?after= does the same for clients that cannot set headers.
    const viaQuery = await fetch(`${server.url}/agui?threadId=${conversation}&after=${encodeURIComponent(lastId)}`, { signal: stop2.signal });
    expect((await take(sseBlocks(viaQuery), all.length - delivered)).events).toEqual(rest.events);
    stop2.abort();
  });

  it('sends keepalive comments while idle, without busy polling', async () => {
    const { server, counts } = await setup(40);
    const conversation = ConversationId.new();
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: abort.signal });
    const blocks = sseBlocks(response);
    const comments: string[] = [];
    const readsBefore = counts.reads;
    while (comments.length < 4) {
      const next = await blocks.next();
      if (next.value?.comment !== undefined) comments.push(next.value.comment);
    }
    expect(comments[0]).toBe('agdx agui');
    expect(comments.slice(1)).toEqual(['keepalive', 'keepalive', 'keepalive']);
    // One read per wake-up (each keepalive period), never a spin.
    expect(counts.reads - readsBefore).toBeLessThanOrEqual(5);
    abort.abort();
  });

  it('keeps the keepalive on time while other conversations write to the same partition', async () => {
    const { laser, server } = await setup(80);
    const conversation = ConversationId.new();
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: abort.signal });
    const blocks = sseBlocks(response);
    await blocks.next();
    // Find a neighbour conversation on the same partition of agent.sessions (4 partitions).
    const { partitionForKey } = await import('@agdx/transport');
    const mine = await partitionForKey(conversation.toString(), 4);
    let neighbour = ConversationId.new();
    while ((await partitionForKey(neighbour.toString(), 4)) !== mine) neighbour = ConversationId.new();
    let writing = true;
    const noise = (async () => {
      const send = laser.agdx(AgentTopic.Sessions, AgentId.new('noise'), neighbour);
      while (writing) {
        await send.emit(text.encode('tick')).send();
        await sleep(10);
      }
    })();
    const next = await blocks.next();
    expect(next.value?.comment).toBe('keepalive');
    writing = false;
    await noise;
    abort.abort();
  });

  it('stops following when the client goes away', async () => {
    const { server, counts } = await setup(60_000);
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${ConversationId.new()}`, { signal: abort.signal });
    const blocks = sseBlocks(response);
    await blocks.next();
    for (let i = 0; i < 100 && counts.waiting === 0; i++) await sleep(5);
    expect(counts.waiting).toBe(1);
    abort.abort();
    for (let i = 0; i < 200 && counts.waiting > 0; i++) await sleep(5);
    expect(counts.waiting).toBe(0);
  });

  it('answers 400, 404 and 405 with a typed JSON error', async () => {
    const { server } = await setup();
    const bad = await fetch(`${server.url}/agui?threadId=nope`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { kind: 'invalid' } });
    const badId = await fetch(`${server.url}/agui?threadId=${ConversationId.new()}`, { headers: { 'last-event-id': 'x:1' } });
    expect(badId.status).toBe(400);
    const put = await fetch(`${server.url}/agui`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, OPTIONS');
    const options = await fetch(`${server.url}/agui`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    const huge = await fetch(`${server.url}/agui`, { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(400);
    expect(await huge.json()).toMatchObject({ error: { kind: 'invalid', message: expect.stringContaining('exceeds') } });
    const badBody = await fetch(`${server.url}/agui`, { method: 'POST', body: '[1]', headers: { 'content-type': 'application/json' } });
    expect(badBody.status).toBe(400);
    const noRun = await fetch(`${server.url}/agui`, { method: 'POST', body: JSON.stringify({ threadId: ConversationId.new().toString() }) });
    expect(noRun.status).toBe(400);
    const log = new MemoryLog();
    const empty = AgdxClient.from(log, { stream: 'nowhere' });
    const missing = await new AguiBridge(empty).handler()(new Request(`http://x/agui?threadId=${ConversationId.new()}`));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { kind: 'not-found' } });
  });
});

describe('live SSE endpoint (POST, one AG-UI run)', () => {
  it('opens with RUN_STARTED, ends at the run’s terminal event and closes the response', async () => {
    const { laser, bridge, server } = await setup();
    const conversation = ConversationId.new();
    const send = laser.agdx(AgentTopic.Sessions, AgentId.new('a'), conversation);
    // An earlier task of the same conversation finishes first; the run follows its own task.
    const earlier = MintUlid.mint(CorrelationId);
    await send.status('task').withCorrelation(earlier).withTaskState(TaskState.Submitted).send();
    await send.status('task').withCorrelation(earlier).withTaskState(TaskState.Completed).send();
    const correlation = MintUlid.mint(CorrelationId);
    const response = await fetch(`${server.url}/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId: conversation.toString(), runId: correlation.toString(), state: {}, messages: [], tools: [], context: [], forwardedProps: {} }),
    });
    const events: AguiEvent[] = [];
    const reading = (async () => {
      for await (const block of sseBlocks(response)) if (block.data !== undefined) events.push(JSON.parse(block.data) as AguiEvent);
    })();
    await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Submitted).send();
    const chat = send.stream(correlation, 'chat');
    await chat.write(text.encode('partial'));
    await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Canceled).send();
    await reading; // the response ends by itself
    // The framing's own events (RUN_STARTED, the closing END, RUN_FINISHED) validate too.
    for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events).toEqual([
      { type: 'RUN_STARTED', threadId: conversation.toString(), runId: correlation.toString() },
      { type: 'TEXT_MESSAGE_START', messageId: expect.any(String), role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: expect.any(String), delta: 'partial' },
      { type: 'TEXT_MESSAGE_END', messageId: expect.any(String) },
      { type: 'RUN_FINISHED', threadId: conversation.toString(), runId: correlation.toString() },
    ]);
  });

  it('resumes a run after forwardedProps.after and ends it with RUN_ERROR when the task fails', async () => {
    const { laser, bridge, server } = await setup();
    const { conversation } = await writeAnswer(laser, bridge, ConversationId.new(), async () => undefined, 'Failed');
    const all = await bridge.aguiEvents(conversation);
    const description = await laser.transport.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions });
    const { partitionForKey } = await import('@agdx/transport');
    const partition = await partitionForKey(conversation.toString(), description.partitionCount);
    // Resume after the tool result record: only later records are sent.
    const records = await laser.transport.read({ stream: 'demo', topic: AgentTopic.Sessions, partition, offset: 0n, maxCount: 1000 });
    const { readAgentMessage } = await import('@agdx/agents');
    const toolResult = records.find((r) => readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Sessions }).envelope?.tool === 'weather' && readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Sessions }).envelope?.kind === 'response')!;
    const response = await fetch(`${server.url}/agui`, {
      method: 'POST',
      body: JSON.stringify({ threadId: conversation.toString(), runId: 'client-run', messages: [], forwardedProps: { after: `${partition}:${toolResult.offset}` } }),
    });
    const events: AguiEvent[] = [];
    for await (const block of sseBlocks(response)) if (block.data !== undefined) events.push(JSON.parse(block.data) as AguiEvent);
    const afterResult = all.slice(all.findIndex((e) => e.type === 'TOOL_CALL_RESULT') + 1);
    expect(events).toEqual([{ type: 'RUN_STARTED', threadId: conversation.toString(), runId: 'client-run' }, ...afterResult]);
    expect(events.at(-1)).toEqual({ type: 'RUN_ERROR', message: 'weather service down' });
    for (const event of events) expect(EventSchema.safeParse(event).success).toBe(true);
  });
});

