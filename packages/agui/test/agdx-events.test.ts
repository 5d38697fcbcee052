/**
 * The opt-in `agdx.*` CUSTOM events: what the reference mapping drops (the user's input, agents'
 * commands, plain replies, human input, the turn's status), added without changing the rest.
 */
import { AgentTopic } from '@agdx/agents';
import { AguiConverter, type AgdxCustomEvent, type AguiEvent } from '@agdx/agui';
import { AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, encodeAgentErrorBody, MintUlid, RecordId } from '@agdx/wire';
import { HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { newLog } from './support/scenario.js';
import { sseBlocks, startServer } from './support/server.js';

const text = new TextEncoder();
const conversation = ConversationId.new();
const operator = AgentId.new('operator');
const planner = AgentId.new('planner');
const worker = AgentId.new('worker');
const approver = AgentId.new('approver');

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function command(source: AgentId, target: AgentId, correlation: CorrelationId, body: string, operation?: string): AgentEnvelope {
  const envelope = AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source, target, correlation, body: text.encode(body) });
  return operation !== undefined ? envelope.withOperation(operation) : envelope;
}

function answer(kind: 'response' | 'error', source: AgentId, target: AgentId, correlation: CorrelationId, body: Uint8Array, tool?: string): AgentEnvelope {
  return AgentEnvelope.fromFields({ kind, record: MintUlid.mint(RecordId), conversation, source, target, correlation, body, ...(tool !== undefined ? { tool } : {}) });
}

/** A two-turn conversation: a delegated answer, then a frontend message that fails; with a human approval and a tool call. */
function conversationRecords(): { records: { envelope: AgentEnvelope; topic: string }[]; question: CorrelationId; followUp: CorrelationId; prompt: CorrelationId } {
  const question = MintUlid.mint(CorrelationId);
  const step = MintUlid.mint(CorrelationId);
  const prompt = MintUlid.mint(CorrelationId);
  const toolCall = MintUlid.mint(CorrelationId);
  const followUp = MintUlid.mint(CorrelationId);
  const sessions = AgentTopic.Sessions;
  const chat = MintUlid.mint(ChannelId);
  const records = [
    { envelope: command(operator, planner, question, 'incident 42', 'plan'), topic: sessions },
    { envelope: command(planner, worker, step, 'summarize: incident 42', 'summarize'), topic: sessions },
    { envelope: command(worker, planner, toolCall, '{"incident":42}').withTool('search'), topic: sessions },
    { envelope: answer('response', planner, worker, toolCall, text.encode('{"hits":3}'), 'search'), topic: sessions },
    { envelope: command(worker, approver, prompt, 'publish?'), topic: AgentTopic.HumanInput },
    { envelope: answer('response', approver, worker, prompt, text.encode('approved')), topic: AgentTopic.HumanInput },
    { envelope: AgentEnvelope.chunk(conversation, worker, step, chat, 0, text.encode('It is a bug.')).withOperation('chat').with({ last: true }), topic: sessions },
    { envelope: answer('response', worker, planner, step, text.encode('It is a bug.')), topic: sessions },
    { envelope: answer('response', planner, operator, question, text.encode('It is a bug.')), topic: sessions },
    { envelope: command(operator, planner, followUp, JSON.stringify({ role: 'user', id: 'm2', content: 'and now?' })), topic: sessions },
    { envelope: answer('error', planner, operator, followUp, encodeAgentErrorBody({ code: 1, message: 'planner down', retryable: false })), topic: sessions },
  ];
  return { records, question, followUp, prompt };
}

const customs = (events: readonly AguiEvent[]): AgdxCustomEvent[] => events.filter((e): e is AgdxCustomEvent => e.type === 'CUSTOM');

describe('AguiConverter with agdxEvents', () => {
  it('adds agdx.* CUSTOM events for every turn and leaves the reference events as they were', () => {
    const { records, question, followUp, prompt } = conversationRecords();
    const reference = new AguiConverter();
    const extended = new AguiConverter({ agdxEvents: true });
    const plain = records.flatMap(({ envelope, topic }) => reference.convert(envelope, topic));
    const events = records.flatMap(({ envelope, topic }) => extended.convert(envelope, topic));
    expect(customs(plain)).toEqual([]);
    expect(events.filter((e) => e.type !== 'CUSTOM')).toEqual(plain);
    for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);

    const shown = customs(events).map((e) => (e.name === 'agdx.turn' ? [e.name, e.value.status, e.value.correlation] : [e.name, `${e.value.from}→${e.value.to ?? ''}`, e.value.text]));
    expect(shown).toEqual([
      ['agdx.user_input', 'operator→planner', 'incident 42'],
      ['agdx.turn', 'working', question.toString()],
      ['agdx.command', 'planner→worker', 'summarize: incident 42'],
      ['agdx.command', 'worker→planner', '{"incident":42}'],
      ['agdx.input_request', 'worker→approver', 'publish?'],
      ['agdx.input_response', 'approver→worker', 'approved'],
      ['agdx.reply', 'worker→planner', 'It is a bug.'],
      ['agdx.reply', 'planner→operator', 'It is a bug.'],
      ['agdx.turn', 'finished', question.toString()],
      // a frontend's JSON message shows its content
      ['agdx.user_input', 'operator→planner', 'and now?'],
      ['agdx.turn', 'working', followUp.toString()],
      ['agdx.reply', 'planner→operator', 'planner down'],
      ['agdx.turn', 'error', followUp.toString()],
    ]);
    const first = customs(events)[0];
    expect(first).toMatchObject({ value: { operation: 'plan', correlation: question.toString(), id: records[0]?.envelope.record?.toString() } });
    expect(customs(events).find((e) => e.name === 'agdx.command' && e.value.tool === 'search')).toBeDefined();
    expect(customs(events).find((e) => e.name === 'agdx.input_request')?.value).toMatchObject({ correlation: prompt.toString() });
    expect(customs(events).at(-2)?.value).toMatchObject({ error: true });
    expect(customs(events).at(-1)?.value).toEqual({ correlation: followUp.toString(), status: 'error', message: 'planner down' });
  });

  it('never throws on hostile bodies and keeps every event valid', () => {
    const converter = new AguiConverter({ agdxEvents: { humanInputTopic: 'asks' } });
    const bodies = [Uint8Array.of(0xff, 0xfe), text.encode('{"content":7}'), text.encode('{not json'), new Uint8Array(0)];
    for (const body of bodies) {
      const correlation = MintUlid.mint(CorrelationId);
      const envelopes = [
        AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source: operator, correlation, body }),
        AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source: worker, correlation: MintUlid.mint(CorrelationId), body }),
        AgentEnvelope.fromFields({ kind: 'error', record: MintUlid.mint(RecordId), conversation, source: planner, correlation, body }),
      ];
      for (const topic of [undefined, 'asks']) {
        for (const envelope of envelopes) {
          for (const event of converter.convert(envelope, topic)) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
        }
      }
    }
  });
});

describe('the live endpoint with agdxEvents', () => {
  it('streams the user input, the human input read from agent.human_input and the turn status, in log order', { timeout: 30_000 }, async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler({ agdxEvents: true }));
    closers.push(server.close);
    const thread = ConversationId.new();
    const question = MintUlid.mint(CorrelationId);
    const sessions = laser.agdx(AgentTopic.Sessions, operator, thread);
    await sessions.command(question, text.encode('incident 42')).withTarget(planner).send();
    const prompt = MintUlid.mint(CorrelationId);
    await laser.agdx(AgentTopic.HumanInput, planner, thread).command(prompt, text.encode('publish?')).withTarget(approver).send();
    await laser.agdx(AgentTopic.HumanInput, approver, thread).respond(prompt, text.encode('approved')).send();
    await laser.agdx(AgentTopic.Sessions, planner, thread).respond(question, text.encode('done')).send();

    const response = await fetch(`${server.url}/agui?threadId=${thread}`);
    expect(response.status).toBe(200);
    const names: string[] = [];
    const blocks = sseBlocks(response);
    for await (const block of blocks) {
      if (block.data === undefined) continue;
      const event = JSON.parse(block.data) as AguiEvent;
      expect(EventSchema.safeParse(event).success).toBe(true);
      if (event.type === 'CUSTOM') names.push(event.name === 'agdx.turn' ? `turn:${event.value.status}` : `${event.name}:${event.value.text}`);
      if (names.includes('turn:finished')) break;
    }
    await blocks.return(undefined);
    expect(names).toEqual(['agdx.user_input:incident 42', 'turn:working', 'agdx.input_request:publish?', 'agdx.input_response:approved', 'agdx.reply:done', 'turn:finished']);

    // Without the option the stream is the reference mapping: none of these records shows.
    const plain = await startServer(bridge.handler({ keepaliveMs: 50 }));
    closers.push(plain.close);
    const reference = await fetch(`${plain.url}/agui?threadId=${thread}`);
    const referenceBlocks = sseBlocks(reference);
    let comments = 0;
    for await (const block of referenceBlocks) {
      expect(block.data, 'the reference mapping has no event for these records').toBeUndefined();
      // the first comment opens the stream, the next ones are keepalives: the replay is over
      if (block.comment !== undefined && (comments += 1) >= 3) break;
    }
    await referenceBlocks.return(undefined);
  });

  it('keeps an official HttpAgent run valid: CUSTOM events reach its subscriber and the run finishes', { timeout: 30_000 }, async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler({ agdxEvents: true }));
    closers.push(server.close);
    const thread = ConversationId.new();
    const question = MintUlid.mint(CorrelationId);
    await laser.agdx(AgentTopic.Sessions, operator, thread).command(question, text.encode('status?')).withTarget(planner).send();
    await laser.agdx(AgentTopic.Sessions, planner, thread).respond(question, text.encode('all good')).send();
    const agent = new HttpAgent({ url: `${server.url}/agui`, threadId: thread.toString() });
    const seen: string[] = [];
    await agent.runAgent({}, { onCustomEvent: ({ event }) => void seen.push(event.name), onEvent: ({ event }) => void (event.type === 'RUN_FINISHED' && seen.push('RUN_FINISHED')) });
    expect(seen).toEqual(['agdx.user_input', 'agdx.turn', 'agdx.reply', 'agdx.turn', 'RUN_FINISHED']);
  });
});
