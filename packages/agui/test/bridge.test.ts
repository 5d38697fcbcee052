import { AgentTopic } from '@agdx/agents';
import { AguiBridge, envelopesToAgUi } from '@agdx/agui';
import { sessions } from '@agdx/sessions';
import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  ChannelId,
  ContentType,
  ConversationId,
  CorrelationId,
  MAX_STATE_DEPTH,
  MintUlid,
  RecordId,
  STATE_DELTA_OPERATION,
  STATE_SNAPSHOT_OPERATION,
  TaskState,
  encodeStateDelta,
  encodeStateSnapshot,
  type JsonValue,
} from '@agdx/wire';
import { EventSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { ANSWER_EVENT_TYPES, newLog, writeAnswer } from './support/scenario.js';

const text = new TextEncoder();

describe('AguiBridge state', () => {
  it('returns nothing until a state record exists, then the folded document', async () => {
    const { bridge } = await newLog();
    const conversation = ConversationId.new();
    expect(await bridge.reconstructState(conversation)).toBeUndefined();
    await bridge.publishStateSnapshot(AgentId.new('ui'), conversation, { count: 0 });
    expect(await bridge.reconstructState(conversation)).toEqual({ count: 0 });
    await bridge.publishStateDelta('ui', conversation, [{ op: 'replace', path: '/count', value: 1 }, { op: 'add', path: '/items', value: ['a'] }]);
    await bridge.publishStateDelta('ui', conversation, [{ op: 'add', path: '/items/-', value: 'b' }]);
    expect(await bridge.reconstructState(conversation)).toEqual({ count: 1, items: ['a', 'b'] });
  });

  it('writes the same records sessions write and sessions fold them', async () => {
    const { laser, bridge } = await newLog();
    const conversation = ConversationId.new();
    await bridge.publishStateSnapshot('ui', conversation, { count: 0 });
    await sessions(laser).open(conversation).lifecycle.patch([{ op: 'replace', path: '/count', value: 5 }], { agent: 'worker' });
    await bridge.publishStateDelta('ui', conversation, [{ op: 'add', path: '/done', value: true }]);
    const view = await sessions(laser).reads.state(conversation);
    expect(view.document).toEqual({ count: 5, done: true });
    expect(view.revision).toBe(3n);
    expect(view.history.map((h) => h.outcome)).toEqual(['applied', 'applied', 'applied']);
    expect(await bridge.reconstructState(conversation)).toEqual(view.document);
  });

  it('refuses, typed and before writing, a delta that would nest the state past MAX_STATE_DEPTH, and the state stays readable', async () => {
    const { laser, bridge } = await newLog();
    const conversation = ConversationId.new();
    const levels = (n: number): JsonValue => {
      let value: JsonValue = {};
      for (let i = 1; i < n; i++) value = { a: value };
      return value;
    };
    // Each delta alone is shallow; together they would nest 50 levels per delta.
    await bridge.publishStateDelta('ui', conversation, [{ op: 'add', path: '/a', value: levels(50) }]);
    const written = (await laser.transport.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions })).partitions;
    const deeper = [{ op: 'add', path: `${'/a'.repeat(50)}/a`, value: levels(50) }];
    await expect(bridge.publishStateDelta('ui', conversation, deeper)).rejects.toSatisfy(
      (e) => AgdxError.is(e, 'invalid') && (e as Error).message.includes(`deeper than ${MAX_STATE_DEPTH} levels`),
    );
    // Nothing was appended for the refused delta, and the state folds and serializes.
    expect((await laser.transport.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions })).partitions).toEqual(written);
    const document = await bridge.reconstructState(conversation);
    expect(JSON.stringify(document).length).toBeGreaterThan(0);
    await bridge.publishStateDelta('ui', conversation, [{ op: 'add', path: '/b', value: 1 }]);
    expect(await bridge.reconstructState(conversation)).toMatchObject({ b: 1 });
  });

  it('refuses a snapshot that is not an object and a delta that is not a JSON Patch array', async () => {
    const { bridge } = await newLog();
    const conversation = ConversationId.new();
    for (const bad of [[1, 2], 'text', 3, null] as JsonValue[]) {
      await expect(bridge.publishStateSnapshot('ui', conversation, bad)).rejects.toSatisfy((e) => AgdxError.is(e, 'invalid'));
    }
    for (const bad of [{ op: 'add' }, 'x', [{ op: 'nope', path: '/a' }], [{ op: 'add', path: 'no-slash', value: 1 }]]) {
      await expect(bridge.publishStateDelta('ui', conversation, bad)).rejects.toSatisfy((e) => AgdxError.is(e, 'invalid'));
    }
    await expect(bridge.publishStateDelta('ui', conversation, { length: 1 })).rejects.toThrow('an AG-UI state delta must be a JSON Patch array');
    await expect(bridge.publishStateSnapshot('ui', 'not-a-conversation' as unknown as ConversationId, {})).rejects.toSatisfy((e) => AgdxError.is(e, 'invalid'));
    expect(await bridge.reconstructState(conversation)).toBeUndefined();
  });
});

describe('AguiBridge.aguiEvents', () => {
  it('renders a streamed answer with reasoning, a tool call and state changes, in order', async () => {
    const { laser, bridge } = await newLog();
    const { conversation, correlation, toolCall } = await writeAnswer(laser, bridge);
    // Another conversation on the same topic never leaks in.
    await writeAnswer(laser, bridge);
    const events = await bridge.aguiEvents(conversation, AgentTopic.Sessions);
    expect(events.map((e) => e.type)).toEqual(ANSWER_EVENT_TYPES);
    for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events[0]).toEqual({ type: 'RUN_STARTED', threadId: conversation.toString(), runId: correlation.toString() });
    expect(events[1]).toEqual({ type: 'STATE_SNAPSHOT', snapshot: { step: 'thinking', count: 0 } });
    expect(events.filter((e) => e.type === 'REASONING_MESSAGE_CONTENT').map((e) => e.delta).join('')).toBe('The user wants the weather.');
    expect(events[6]).toEqual({ type: 'TOOL_CALL_START', toolCallId: toolCall.toString(), toolCallName: 'weather' });
    expect(events.filter((e) => e.type === 'TOOL_CALL_ARGS').map((e) => e.delta).join('')).toBe('{"city":"Oslo"}');
    // The result pairs with the call's argument stream, as AG-UI clients match them by toolCallId.
    expect(events[10]).toMatchObject({ type: 'TOOL_CALL_RESULT', toolCallId: toolCall.toString(), content: '{"temp":21}' });
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('')).toBe('It is 21 °C in Oslo.');
    expect(events.at(-1)).toEqual({ type: 'RUN_FINISHED', threadId: conversation.toString(), runId: correlation.toString() });
    // The default topic is agent.sessions.
    expect(await bridge.aguiEvents(conversation)).toEqual(events);
  });

  it('maps failed and rejected tasks to RUN_ERROR with the detail or "task failed", and other errors too', async () => {
    const { laser, bridge } = await newLog();
    const conversation = ConversationId.new();
    const send = laser.agdx(AgentTopic.Sessions, AgentId.new('a'), conversation);
    const c1 = MintUlid.mint(CorrelationId);
    const c2 = MintUlid.mint(CorrelationId);
    const c3 = MintUlid.mint(CorrelationId);
    await send.status('task').withCorrelation(c1).withTaskState(TaskState.Failed).body(text.encode('disk full')).send();
    await send.status('task').withCorrelation(c2).withTaskState(TaskState.Rejected).send();
    await send.status('task').withCorrelation(c3).withTaskState(TaskState.Canceled).send();
    await send.status('task').withCorrelation(c1).withTaskState(TaskState.Working).send();
    await send.status('progress').withCorrelation(c1).send();
    await send.fail(c1, { code: 1, message: 'model crashed', retryable: false }).send();
    await send.fail(c1, { code: 1, message: 'no such city', retryable: false }).withTool('weather').send();
    await send.command(c1, text.encode('do it')).send();
    const events = await bridge.aguiEvents(conversation);
    expect(events).toMatchObject([
      { type: 'RUN_ERROR', message: 'disk full' },
      { type: 'RUN_ERROR', message: 'task failed' },
      { type: 'RUN_FINISHED', threadId: conversation.toString(), runId: c3.toString() },
      { type: 'RUN_ERROR', message: 'model crashed' },
      { type: 'TOOL_CALL_RESULT', toolCallId: c1.toString(), content: 'no such city' },
    ]);
    expect(events).toHaveLength(5);
    for (const event of events) expect(EventSchema.safeParse(event).success).toBe(true);
  });

  it('renders only the first terminal status of a task, as GetTask and CancelTask report it', async () => {
    const { laser, bridge } = await newLog();
    const conversation = ConversationId.new();
    const send = laser.agdx(AgentTopic.Sessions, AgentId.new('a'), conversation);
    const done = MintUlid.mint(CorrelationId);
    const failed = MintUlid.mint(CorrelationId);
    await send.status('task').withCorrelation(done).withTaskState(TaskState.Submitted).send();
    await send.status('task').withCorrelation(done).withTaskState(TaskState.Completed).send();
    // A cancel after completion (CancelTask publishes it) and any later terminal change nothing.
    await send.status('task').withCorrelation(done).withTaskState(TaskState.Canceled).body(text.encode('canceled')).send();
    await send.status('task').withCorrelation(done).withTaskState(TaskState.Failed).body(text.encode('late failure')).send();
    await send.status('task').withCorrelation(failed).withTaskState(TaskState.Failed).body(text.encode('disk full')).send();
    await send.status('task').withCorrelation(failed).withTaskState(TaskState.Completed).send();
    const events = await bridge.aguiEvents(conversation);
    expect(events).toEqual([
      { type: 'RUN_STARTED', threadId: conversation.toString(), runId: done.toString() },
      { type: 'RUN_FINISHED', threadId: conversation.toString(), runId: done.toString() },
      { type: 'RUN_ERROR', message: 'disk full' },
    ]);
  });
});

describe('AguiConverter', () => {
  const conversation = ConversationId.new();
  const source = AgentId.new('m');
  const correlation = MintUlid.mint(CorrelationId);

  it('decodes UTF-8 across chunk boundaries and ignores chunks after the end', () => {
    const channel = MintUlid.mint(ChannelId);
    const bytes = text.encode('é🤖');
    const chunks = [
      AgentEnvelope.chunk(conversation, source, correlation, channel, 0, bytes.slice(0, 1)).withOperation('chat'),
      AgentEnvelope.chunk(conversation, source, correlation, channel, 1, bytes.slice(1, 4)),
      AgentEnvelope.chunk(conversation, source, correlation, channel, 2, bytes.slice(4)).with({ last: true }),
      AgentEnvelope.chunk(conversation, source, correlation, channel, 3, text.encode('late')),
    ];
    const events = envelopesToAgUi(chunks);
    expect(events.map((e) => e.type)).toEqual(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']);
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('')).toBe('é🤖');
  });

  it('pairs a tool result with the tool-argument stream its correlation opened', () => {
    const call = MintUlid.mint(CorrelationId);
    const channel = MintUlid.mint(ChannelId);
    const records = [
      AgentEnvelope.chunk(conversation, source, call, channel, 0, text.encode('{"q":"x"}')).withOperation('tool_args').withTool('search'),
      AgentEnvelope.chunk(conversation, source, call, channel, 1, new Uint8Array(0)).with({ last: true }),
      AgentEnvelope.response(MintUlid.mint(RecordId), conversation, AgentId.new('tools'), call, text.encode('{"hits":1}')).withTool('search'),
      // A result whose call never streamed arguments keeps its correlation as the id.
      AgentEnvelope.response(MintUlid.mint(RecordId), conversation, AgentId.new('tools'), correlation, text.encode('{}')).withTool('clock'),
    ];
    const events = envelopesToAgUi(records);
    expect(events.map((e) => [e.type, 'toolCallId' in e ? e.toolCallId : undefined])).toEqual([
      ['TOOL_CALL_START', channel.toString()],
      ['TOOL_CALL_ARGS', channel.toString()],
      ['TOOL_CALL_END', channel.toString()],
      ['TOOL_CALL_RESULT', channel.toString()],
      ['TOOL_CALL_RESULT', correlation.toString()],
    ]);
    for (const event of events) expect(EventSchema.safeParse(event).success).toBe(true);
  });

  it('renders only the state records the session fold applies', async () => {
    const { laser, bridge } = await newLog();
    const c = ConversationId.new();
    await bridge.publishStateSnapshot('ui', c, { n: 0 });
    await bridge.publishStateDelta('ui', c, [{ op: 'replace', path: '/n', value: 1 }]);
    // A writer that still believes the lane is at revision 0 writes a stale snapshot.
    const stale = AgentEnvelope.event(MintUlid.mint(RecordId), c, AgentId.new('w'), encodeStateSnapshot({ baseRevision: 0n, document: { n: 99 } })).withOperation(
      STATE_SNAPSHOT_OPERATION,
    );
    await laser.publish(AgentTopic.Sessions, stale, ContentType.cbor);
    // A delta whose patch cannot apply is rejected by the fold.
    const failing = AgentEnvelope.event(
      MintUlid.mint(RecordId),
      c,
      AgentId.new('w'),
      encodeStateDelta({ baseRevision: 2n, patch: [{ op: 'remove', path: '/missing' }], opId: 'failing' }),
    ).withOperation(STATE_DELTA_OPERATION);
    await laser.publish(AgentTopic.Sessions, failing, ContentType.cbor);
    const events = await bridge.aguiEvents(c);
    expect(events).toEqual([
      { type: 'STATE_SNAPSHOT', snapshot: { n: 0 } },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/n', value: 1 }] },
    ]);
    expect(await bridge.reconstructState(c)).toEqual({ n: 1 });
  });
});

describe('AguiBridge construction', () => {
  it('needs a stream', async () => {
    const { log } = await newLog();
    const { AgdxClient } = await import('@agdx/agents');
    const bridge = new AguiBridge(AgdxClient.from(log));
    await expect(bridge.aguiEvents(ConversationId.new())).rejects.toSatisfy((e) => AgdxError.is(e, 'invalid'));
    const named = new AguiBridge(AgdxClient.from(log), { stream: 'demo' });
    expect(await named.aguiEvents(ConversationId.new())).toEqual([]);
  });
});
