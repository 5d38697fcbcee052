import { describe, expect, it } from 'vitest';
import { AgdxClient, NoStreamError, PolicyBlockedError, type ActionGovernor, type GovernedAction } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { ConversationId, InvalidError } from '@agdx/wire';
import { MissingTopicError, RoleFilter, SessionConfig, sessions, sessionTurnText, TokenBudget, Chain, LastN } from '@agdx/sessions';
import { setup } from './helpers.js';

describe('factory and opening', () => {
  it('does no I/O until a verb runs', () => {
    const calls: string[] = [];
    const transport = new Proxy({}, { get: (_t, prop) => () => calls.push(String(prop)) }) as never;
    const laser = AgdxClient.from(transport, { stream: 'demo' });
    const factory = sessions(laser);
    factory.create('a');
    factory.start();
    factory.open(ConversationId.derive('b'));
    expect(calls).toEqual([]);
  });

  it('create derives the conversation; start is random; open reuses one', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    expect(factory.create('user-1').conversation.toString()).toBe('6X4VM88293CP9BFK3H58TFMMS7');
    const started = factory.start();
    expect(started.conversation.equals(factory.start().conversation)).toBe(false);
    await started.append('instruction', 'hi');
    const reopened = factory.open(started.conversation);
    expect((await reopened.context()).map(sessionTurnText)).toEqual(['hi']);
    expect(reopened.scope.conversation.equals(started.conversation)).toBe(true);
    expect(reopened.scope.stream).toBe('demo');
    expect(() => factory.open('x' as never)).toThrow(InvalidError);
    expect(() => factory.create(1 as never)).toThrow(InvalidError);
  });

  it('the governor checks each append as an unsigned send, may refuse or rewrite', async () => {
    const { laser } = await setup();
    const seen: GovernedAction[] = [];
    const governor: ActionGovernor = {
      check(action) {
        seen.push(action);
        const text = new TextDecoder().decode(action.payload);
        if (text === 'secret') return { kind: 'deny', reason: 'no secrets' };
        if (text === 'rewrite me') return { kind: 'rewrite', body: new TextEncoder().encode('rewritten') };
        return { kind: 'allow' };
      },
    };
    const session = sessions(laser, new SessionConfig(), { governor }).create('governed');
    await session.append('instruction', 'fine');
    await expect(session.append('instruction', 'secret')).rejects.toThrow(PolicyBlockedError);
    await session.append('tool.call', 'rewrite me');
    expect((await session.context()).map(sessionTurnText)).toEqual(['fine', 'rewritten']);
    expect(seen.map((a) => [a.kind, a.topic, a.signed])).toEqual([
      ['send', 'agent.commands', false],
      ['send', 'agent.commands', false],
      ['send', 'agent.tool_calls', false],
    ]);
    expect(seen[0]?.conversation).toBe(session.conversation.toString());
  });

  it('without an explicit governor, session appends pass the governor the client was built with', async () => {
    const log = new MemoryLog();
    const seen: string[] = [];
    const governor: ActionGovernor = {
      check(action) {
        seen.push(action.topic);
        return new TextDecoder().decode(action.payload) === 'secret' ? { kind: 'deny', reason: 'no secrets' } : { kind: 'allow' };
      },
    };
    const laser = AgdxClient.from(log, { stream: 'demo', governor });
    await laser.bootstrap(1);
    const session = sessions(laser).create('client-governed');
    await session.append('instruction', 'fine');
    await expect(session.append('instruction', 'secret')).rejects.toThrow(PolicyBlockedError);
    expect(seen).toEqual(['agent.commands', 'agent.commands']);
  });

  it('a turn is a plain agent message keyed by its conversation with only the conversation header', async () => {
    const { log, laser } = await setup({ partitions: 8 });
    const session = sessions(laser).create('agent-42');
    const at = await session.append('instruction', 'x');
    expect(at.partition).toBe(5);
    const [record] = await log.read({ stream: 'demo', topic: 'agent.commands', partition: at.partition, offset: at.offset });
    expect([...(record?.headers.keys() ?? [])]).toEqual(['gen_ai.conversation.id']);
  });

  it('an append to a topic that does not exist names it', async () => {
    const { laser } = await setup();
    const session = sessions(laser, new SessionConfig().topic('instruction', 'not.there')).create('m');
    const error = await session.append('instruction', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingTopicError);
    expect((error as Error).message).toContain('"not.there" does not exist on stream "demo"');
    // reads of a missing topic contribute nothing
    expect(await session.context()).toEqual([]);
  });

  it('without a stream, verbs fail with NoStreamError', async () => {
    const laser = AgdxClient.from(new MemoryLog());
    await expect(sessions(laser).create('a').append('instruction', 'x')).rejects.toThrow(NoStreamError);
  });

  it('bootstrap: the default layout creates the topics; a custom layout needs its topics and names a missing one', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    const result = await sessions(laser).bootstrap(2);
    expect(result.topics).toContain('agent.commands');
    expect((await log.describeTopic({ stream: 'demo', topic: 'agent.human_input' })).partitionCount).toBe(2);
    const custom = sessions(laser, new SessionConfig().stream('support').topic('instruction', 'support.turns'));
    const error = await custom.bootstrap(2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingTopicError);
    await log.ensureStream('support');
    await log.ensureTopic({ stream: 'support', topic: 'support.turns' }, { partitions: 1 });
    await expect(custom.bootstrap(2)).rejects.toThrow(/"agent.responses" does not exist on stream "support"/);
  });

  it('context policies: RoleFilter keeps listed agents, TokenBudget takes a custom estimator, LastN(0) and negative bounds', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('roles');
    await session.append('instruction', 'no agent');
    const messages = await session.scope.read(session.scope.topics);
    expect(new RoleFilter(['planner']).select(messages)).toEqual([]);
    const withAgent = [{ ...messages[0], provenance: { ...messages[0]?.provenance, agent: { value: 'planner' } } }] as never;
    expect(new RoleFilter(['planner']).select(withAgent)).toHaveLength(1);
    for (let i = 0; i < 5; i++) await session.append('response', `r${i}`);
    const perTurn = new TokenBudget(3, () => 1);
    expect((await session.contextWith(perTurn)).map(sessionTurnText)).toEqual(['r2', 'r3', 'r4']);
    expect(await session.contextWith(new LastN(0))).toEqual([]);
    expect(await session.contextWith(new LastN(-3))).toEqual([]);
    expect((await session.contextWith(new Chain([]))).length).toBe(6);
    expect((await session.contextWith(new TokenBudget(0))).map(sessionTurnText)).toEqual(['r4']);
    await expect(session.contextWith({} as never)).rejects.toThrow(InvalidError);
    await expect(session.contextWith({ select: () => undefined } as never)).rejects.toThrow(InvalidError);
    expect(() => new Chain([{}] as never)).toThrow(InvalidError);
  });

  it('TokenBudget: an estimate of Infinity never fits (the walk stops there, the newest is still kept); NaN and negatives cost nothing', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('estimates');
    for (const text of ['old', 'huge', 'new', 'newest']) await session.append('response', text);
    const estimate = (cost: number) => (m: { readonly payload: Uint8Array }) => (new TextDecoder().decode(m.payload) === 'huge' ? cost : 1);
    expect((await session.contextWith(new TokenBudget(100, estimate(Infinity)))).map(sessionTurnText)).toEqual(['new', 'newest']);
    expect((await session.contextWith(new TokenBudget(100, estimate(Number.NaN)))).map(sessionTurnText)).toEqual(['old', 'huge', 'new', 'newest']);
    expect((await session.contextWith(new TokenBudget(100, estimate(-5)))).map(sessionTurnText)).toEqual(['old', 'huge', 'new', 'newest']);
    const newestHuge = (m: { readonly payload: Uint8Array }) => (new TextDecoder().decode(m.payload) === 'newest' ? Infinity : 1);
    expect((await session.contextWith(new TokenBudget(100, newestHuge))).map(sessionTurnText)).toEqual(['newest']);
    expect((await session.contextWith(new TokenBudget(Infinity, estimate(Infinity)))).length).toBe(4);
  });

  it('config setters validate and return new configs', () => {
    const base = new SessionConfig();
    const next = base.contextTurns(3);
    expect(base.contextTurnBound).toBe(50);
    expect(next.contextTurnBound).toBe(3);
    expect(() => base.contextTurns(-1)).toThrow(InvalidError);
    expect(() => base.contextTokens(1.5)).toThrow(InvalidError);
    expect(() => base.topic('bogus' as never, 'x')).toThrow(InvalidError);
    expect(() => base.topic('instruction', '')).toThrow(InvalidError);
    expect(() => base.stream('')).toThrow(InvalidError);
    expect(() => base.memoryNamespace(7 as never)).toThrow(InvalidError);
  });
});
