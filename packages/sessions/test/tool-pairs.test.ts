/**
 * A context policy cuts the history between a tool call and its result; model APIs refuse a tool
 * result whose call is not in the messages (and a call whose result is not), so `contextWith`
 * drops the half the cut left alone. The seed trims without looking at pairs: see the README's
 * "Tool calls and results in the context".
 */
import { Chain, LastN, RoleFilter, sessions, sessionTurnText, TokenBudget, type ContextPolicy, type Session, type SessionTurnKind } from '@agdx/sessions';
import { ManualLogClock } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

const text = new TextEncoder();

/** A session on a log whose broker clock moves one millisecond per turn, so read order is append order. */
async function ticking(name: string) {
  const clock = new ManualLogClock(1_700_000_000_000_000n);
  const { laser } = await setup({ clock });
  const session = sessions(laser).create(name);
  const append = async (kind: SessionTurnKind, data: string): Promise<void> => {
    clock.advance(1000n);
    await session.append(kind, data);
  };
  return { laser, session, clock, append };
}

async function shown(session: Session, policy: ContextPolicy): Promise<string[]> {
  return (await session.contextWith(policy)).map((turn) => `${turn.kind} ${sessionTurnText(turn)}`);
}

describe('tool calls and results in the context', () => {
  it('a turn bound that cuts a call drops its result', async () => {
    const { session, append } = await ticking('cut-call');
    await append('instruction', 'find ticket 42');
    await append('tool.call', 'search(42)');
    await append('tool.result', '3 comments');
    await append('model.response', 'a login bug');
    expect(await shown(session, new LastN(2))).toEqual(['model.response a login bug']);
    expect(await shown(session, new LastN(3))).toEqual(['tool.call search(42)', 'tool.result 3 comments', 'model.response a login bug']);
    // turns() applies no policy, so it cuts nothing and keeps everything
    expect(await session.turns()).toHaveLength(4);
  });

  it('a token budget that cuts a call drops its result, and the default context does too', async () => {
    const { session, append } = await ticking('budget-cut');
    await append('instruction', 'read the log');
    await append('tool.call', `read(${'x'.repeat(4000)})`);
    await append('tool.result', 'ok');
    await append('model.response', 'done');
    expect(await shown(session, new TokenBudget(100))).toEqual(['model.response done']);
    // the four turns are about 1,010 tokens, within the default 4,000
    expect((await session.context()).map((t) => t.kind)).toEqual(['instruction', 'tool.call', 'tool.result', 'model.response']);
    for (let i = 0; i < 48; i++) await append('model.response', `filler ${i}`);
    // 52 turns: the default LastN(50) starts at the result, which goes without its call
    const kinds = (await session.context()).map((t) => t.kind);
    expect(kinds).toHaveLength(49);
    expect(kinds).not.toContain('tool.result');
  });

  it('parallel plain calls pair in order: a cut inside the calls drops the results of the calls it cut', async () => {
    const { session, append } = await ticking('parallel');
    await append('tool.call', 'weather(Oslo)');
    await append('tool.call', 'weather(Rome)');
    await append('tool.result', 'Oslo 3');
    await append('tool.result', 'Rome 9');
    await append('model.response', 'cold');
    // The cut leaves Rome's call: Oslo's result goes with Oslo's call, and Rome's call keeps its
    // own result (not Oslo's, which would tell the model Rome is at 3 degrees).
    expect(await shown(session, new LastN(4))).toEqual(['tool.call weather(Rome)', 'tool.result Rome 9', 'model.response cold']);
    expect(await shown(session, new LastN(5))).toHaveLength(5);
  });

  it('a run of plain results answers the newest open calls, so an older unanswered call shifts nothing', async () => {
    const { session, append } = await ticking('crash-then-pairs');
    await append('tool.call', 'crashed()');
    await append('tool.call', 'search(42)');
    await append('tool.result', '3 comments');
    await append('tool.call', 'search(43)');
    await append('tool.result', '0 comments');
    expect(await shown(session, new LastN(2))).toEqual(['tool.call search(43)', 'tool.result 0 comments']);
    expect(await shown(session, new LastN(3))).toEqual(['tool.call search(43)', 'tool.result 0 comments']);
    expect(await shown(session, new LastN(4))).toEqual(['tool.call search(42)', 'tool.result 3 comments', 'tool.call search(43)', 'tool.result 0 comments']);
  });

  it('a result beyond the open calls is the run\'s newest, left unpaired', async () => {
    const { session, append } = await ticking('extra-result');
    await append('tool.call', 'search(42)');
    await append('tool.result', '3 comments');
    // a result whose call another writer keeps elsewhere (as @agdx/ai-sdk does, in model.response)
    await append('tool.result', 'from elsewhere');
    expect(await shown(session, new LastN(2))).toEqual(['tool.result from elsewhere']);
    expect(await shown(session, new LastN(3))).toHaveLength(3);
  });

  it('a call never answered does not shift the pairs after it', async () => {
    const { session, append } = await ticking('lost-result');
    await append('tool.call', 'crashed()');
    await append('tool.call', 'search(42)');
    await append('tool.result', '3 comments');
    expect(await shown(session, new LastN(2))).toEqual(['tool.call search(42)', 'tool.result 3 comments']);
  });

  it('a call still waiting for its result stays; a result with no call in the history stays', async () => {
    const { session, append } = await ticking('pending');
    await append('tool.result', 'from before the window');
    await append('instruction', 'find ticket 42');
    await append('tool.call', 'search(42)');
    expect(await shown(session, new LastN(10))).toEqual(['tool.result from before the window', 'instruction find ticket 42', 'tool.call search(42)']);
  });

  it('correlated calls and results (envelopes) pair by correlation, whatever their order', async () => {
    const { laser, session, clock } = await ticking('correlated');
    const agent = AgentId.new('assistant');
    const conversation = session.conversation;
    const publish = async (kind: 'tool.call' | 'tool.result', correlation: CorrelationId, body: string): Promise<void> => {
      clock.advance(1000n);
      const make = kind === 'tool.call' ? AgentEnvelope.command : AgentEnvelope.response;
      await laser.publish(session.config.topicFor(kind), make(MintUlid.mint(RecordId), conversation, agent, correlation, text.encode(body)), ContentType.raw);
    };
    const oslo = MintUlid.mint(CorrelationId);
    const rome = MintUlid.mint(CorrelationId);
    await publish('tool.call', oslo, 'weather(Oslo)');
    await publish('tool.call', rome, 'weather(Rome)');
    await publish('tool.result', rome, 'Rome 9');
    await publish('tool.result', oslo, 'Oslo 3');
    // the cut leaves Rome's call and both results: Oslo's result goes, Rome's pair stays
    expect(await shown(session, new LastN(3))).toEqual(['tool.call weather(Rome)', 'tool.result Rome 9']);
  });

  it('a policy that keeps calls and not their results drops the answered calls', async () => {
    const { laser, session, clock } = await ticking('role-filter');
    const caller = AgentId.new('planner');
    const tool = AgentId.new('toolbox');
    const conversation = session.conversation;
    const done = MintUlid.mint(CorrelationId);
    const waiting = MintUlid.mint(CorrelationId);
    clock.advance(1000n);
    await laser.publish(session.config.topicFor('tool.call'), AgentEnvelope.command(MintUlid.mint(RecordId), conversation, caller, done, text.encode('search(42)')), ContentType.raw);
    clock.advance(1000n);
    await laser.publish(session.config.topicFor('tool.result'), AgentEnvelope.response(MintUlid.mint(RecordId), conversation, tool, done, text.encode('3 comments')), ContentType.raw);
    clock.advance(1000n);
    await laser.publish(session.config.topicFor('tool.call'), AgentEnvelope.command(MintUlid.mint(RecordId), conversation, caller, waiting, text.encode('search(43)')), ContentType.raw);
    expect(await shown(session, new Chain([new RoleFilter([caller])]))).toEqual(['tool.call search(43)']);
  });
});
