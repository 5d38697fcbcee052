import { AgentTopic } from '@agdx/agents';
import { appendModelMessages, modelMessagesFromTurns, recordModelStream, sessionModelMessages, TURN_FORMAT } from '@agdx/ai-sdk';
import { LastN, sessions } from '@agdx/sessions';
import { ManualLogClock, MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { memoryClient, readAll } from './support/log.js';
import { finish, reasoningParts, scriptedModel, textParts, toolCallParts } from './support/mock-model.js';

const weather = tool({
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }),
  execute: async ({ city }) => {
    if (city === 'Rome') throw new Error('no station');
    return { city, celsius: 3 };
  },
});

const script = [
  [...reasoningParts('r', 'two cities'), ...textParts('t1', 'Checking.'), ...toolCallParts('call-1', 'weather', '{"city":"Oslo"}'), ...toolCallParts('call-2', 'weather', '{"city":"Rome"}'), finish('tool-calls')],
  [...textParts('t2', 'Oslo: 3 °C.'), finish('stop')],
];

const expected: ModelMessage[] = [
  { role: 'user', content: 'Weather in Oslo and Rome?' },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'two cities' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: { city: 'Oslo' } },
      { type: 'tool-call', toolCallId: 'call-2', toolName: 'weather', input: { city: 'Rome' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', output: { type: 'json', value: { city: 'Oslo', celsius: 3 } } },
      { type: 'tool-result', toolCallId: 'call-2', toolName: 'weather', output: { type: 'error-text', value: 'no station' } },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Oslo: 3 °C.' }] },
];

async function recordedSession(log = new MemoryLog()) {
  const { laser } = await memoryClient({}, log);
  const session = sessions(laser).create('weather-chat');
  const result = streamText({ model: scriptedModel(script), prompt: 'Weather in Oslo and Rome?', tools: { weather }, stopWhen: stepCountIs(3) });
  const destination = { send: laser.agdx(AgentTopic.Streams, AgentId.new('assistant'), session.conversation), correlation: MintUlid.mint(CorrelationId) };
  const outcome = await recordModelStream(result, destination, { session, request: [{ role: 'user', content: 'Weather in Oslo and Rome?' }] });
  return { laser, session, outcome };
}

describe('model calls as session turns', () => {
  it('appends the request and each step, and context() gives the next call its messages', async () => {
    const { session, outcome } = await recordedSession();
    expect(outcome.messages).toEqual(expected.slice(1));
    const turns = await session.context();
    expect(turns.map((turn) => turn.kind)).toEqual(['instruction', 'model.response', 'tool.result', 'model.response']);
    const messages = await sessionModelMessages(session);
    expect(messages).toEqual(expected);

    // The next call takes them as its history, and the AI SDK accepts them as they are.
    const next = scriptedModel([[...textParts('t', 'Same tomorrow.'), finish('stop')]]);
    const followUp = streamText({ model: next, messages: [...messages, { role: 'user', content: 'And tomorrow?' }] });
    expect(await followUp.text).toBe('Same tomorrow.');
    expect(next.doStreamCalls[0]!.prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('keeps the written order when the broker stamps every turn with the same microsecond', async () => {
    const { session } = await recordedSession(new MemoryLog({ clock: new ManualLogClock(1_700_000_000_000_000n) }));
    const turns = await session.context();
    // The session read sorts equal timestamps by topic: the second answer comes back before the tool results.
    expect(turns.map((turn) => turn.kind)).toEqual(['instruction', 'model.response', 'model.response', 'tool.result']);
    expect(modelMessagesFromTurns(turns)).toEqual(expected);
  });

  it('drops the orphan half of a tool exchange a context policy cut', async () => {
    const { session } = await recordedSession();
    expect(await sessionModelMessages(session, new LastN(2))).toEqual([expected[3]]);
    expect(await sessionModelMessages(session, new LastN(3))).toEqual([
      { role: 'assistant', content: [{ type: 'reasoning', text: 'two cities' }, { type: 'text', text: 'Checking.' }, ...(expected[1]!.content as unknown[]).slice(2)] },
      expected[2],
      expected[3],
    ]);
  });

  it('takes a copied turn once: a tool result appended again is not given to the model twice', async () => {
    const log = new MemoryLog();
    const { session } = await recordedSession(log);
    const topic = session.config.topicFor('tool.result');
    const [result] = await readAll(log, topic);
    await log.append({ stream: 'demo', topic, routing: { key: session.conversation.toString() }, records: [{ headers: result!.headers, payload: result!.payload }] });
    // the session reads keep the copy (a plain turn carries no record id); the conversion does not
    expect((await session.turns()).map((turn) => turn.kind)).toEqual(['instruction', 'model.response', 'tool.result', 'model.response', 'tool.result']);
    expect(await sessionModelMessages(session)).toEqual(expected);
    // the same call and place with other bytes is another message, and is kept
    await appendModelMessages(session, [{ role: 'user', content: 'again' }], { call: 'mine', firstSeq: 0 });
    await appendModelMessages(session, [{ role: 'user', content: 'and again' }], { call: 'mine', firstSeq: 0 });
    expect((await sessionModelMessages(session)).slice(-2)).toEqual([{ role: 'user', content: 'again' }, { role: 'user', content: 'and again' }]);
  });

  it('reads plain turns of other writers by kind and never trusts a payload that only looks like its own', async () => {
    const { laser } = await memoryClient();
    const session = sessions(laser).open(ConversationId.new());
    await session.append('instruction', 'summarize the ticket');
    await session.append('tool.call', 'search(ticket=42)');
    await session.append('tool.result', '3 comments');
    await session.append('human.input', 'approved');
    const forged = JSON.stringify({ format: TURN_FORMAT, call: 'c', seq: 0, message: { role: 'wizard', content: 'x' } });
    await session.append('model.response', forged);
    await session.append('model.response', new Uint8Array([0x7b, 0xff, 0xfe, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    await appendModelMessages(session, [{ role: 'assistant', content: 'it is a login bug' }]);
    const messages = await sessionModelMessages(session);
    expect(messages.map((m) => [m.role, typeof m.content === 'string' ? m.content.slice(0, 20) : 'parts'])).toEqual([
      ['user', 'summarize the ticket'],
      ['user', 'approved'],
      ['assistant', forged.slice(0, 20)],
      ['assistant', '{\ufffd\ufffd\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t'.slice(0, 20)],
      ['assistant', 'it is a login bug'],
    ]);
  });

  it('refuses messages that are not AI SDK messages', async () => {
    const { laser } = await memoryClient();
    const session = sessions(laser).open(ConversationId.new());
    await expect(appendModelMessages(session, [{ content: 'no role' } as never])).rejects.toMatchObject({ kind: 'invalid' });
    await expect(appendModelMessages(session, 'hi' as never)).rejects.toMatchObject({ kind: 'invalid' });
    expect(() => modelMessagesFromTurns('turns' as never)).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });
});
