import { describe, expect, it } from 'vitest';
import { ManualLogClock } from '@agdx/transport';
import { sessions, sessionTurnText, DEFAULT_SESSION_TOPICS, sessionTurnKind, sessionTurnTopic, SESSION_TURN_KINDS } from '@agdx/sessions';
import { encodeProvenanceHeaders, ConversationId, InvalidError } from '@agdx/wire';
import { setup } from './helpers.js';

describe('turn order', () => {
  it('with equal broker timestamps, falls back to topic order (kind order), partition and offset', async () => {
    const clock = new ManualLogClock(1_700_000_000_000_000n);
    const { laser } = await setup({ clock });
    const session = sessions(laser).create('same-time');
    // written in reverse kind order, all at the same broker time
    await session.append('human.input', 'h');
    await session.append('tool.result', 'tr');
    await session.append('tool.call', 'tc');
    await session.append('model.response', 'm');
    await session.append('response', 'r');
    await session.append('instruction', 'i1');
    await session.append('instruction', 'i2');
    const turns = await session.context();
    expect(turns.map(sessionTurnText)).toEqual(['i1', 'i2', 'r', 'm', 'tc', 'tr', 'h']);
    expect(turns.map((t) => t.kind)).toEqual(['instruction', 'instruction', 'response', 'model.response', 'tool.call', 'tool.result', 'human.input']);
  });

  it('orders by broker time, never the producer order across topics', async () => {
    const clock = new ManualLogClock(1_000n);
    const { laser } = await setup({ clock });
    const session = sessions(laser).create('timed');
    await session.append('tool.result', 'first');
    clock.advance(10n);
    await session.append('instruction', 'second');
    clock.advance(10n);
    await session.append('tool.call', 'third');
    expect((await session.context()).map(sessionTurnText)).toEqual(['first', 'second', 'third']);
  });

  it('reads any agent message of the conversation on the layout topics as a turn, and skips others', async () => {
    const { log, laser } = await setup();
    const session = sessions(laser).create('mixed');
    const conversation = session.conversation;
    // a plain record written by someone else on agent.responses, keyed by the conversation
    await log.append({ stream: 'demo', topic: 'agent.responses', records: [{ headers: encodeProvenanceHeaders({ conversation, agent: 'fabric' }), payload: new TextEncoder().encode('from fabric') }], routing: { key: conversation.toString() } });
    // another conversation and an undecodable record
    await log.append({ stream: 'demo', topic: 'agent.responses', records: [{ headers: encodeProvenanceHeaders({ conversation: ConversationId.derive('x') }), payload: new Uint8Array([1]) }], routing: { key: 'x' } });
    await log.append({ stream: 'demo', topic: 'agent.responses', records: [{ payload: new Uint8Array([0xff]) }], routing: { partition: 0 } });
    await log.append({ stream: 'demo', topic: 'agent.responses', records: [{ payload: new Uint8Array([0xff]) }], routing: { partition: 1 } });
    const turns = await session.context();
    expect(turns).toHaveLength(1);
    expect(turns[0]?.kind).toBe('response');
    expect(turns[0]?.message.provenance.agent?.value).toBe('fabric');
  });

  it('maps kinds and default topics', () => {
    expect(SESSION_TURN_KINDS.map(sessionTurnTopic)).toEqual(DEFAULT_SESSION_TOPICS);
    expect(DEFAULT_SESSION_TOPICS.map(sessionTurnKind)).toEqual(SESSION_TURN_KINDS);
    expect(sessionTurnKind('agent.sessions')).toBeUndefined();
    expect(() => sessionTurnTopic('nope' as never)).toThrow(InvalidError);
  });
});

describe('envelope records on the turn topics', () => {
  it('an AGDX response of the conversation reads back as a response turn, with its body as text', async () => {
    const { laser } = await setup();
    const { AgentId, CorrelationId, MintUlid } = await import('@agdx/wire');
    const session = sessions(laser).create('with-envelopes');
    await session.append('instruction', 'question');
    await laser
      .agdx('agent.responses', AgentId.parse('fabric'), session.conversation)
      .respond(MintUlid.mint(CorrelationId), new TextEncoder().encode('answer'))
      .send();
    const turns = await session.context();
    expect(turns.map((t) => [t.kind, sessionTurnText(t)])).toEqual([
      ['instruction', 'question'],
      ['response', 'answer'],
    ]);
    expect(turns[1]?.message.envelope?.kind).toBe('response');
    expect(turns[1]?.message.provenance.agent?.value).toBe('fabric');
  });
});
