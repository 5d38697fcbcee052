import { describe, expect, it } from 'vitest';
import { InvalidError } from '@agdx/wire';
import { Chain, Checkpoint, LastN, SessionConfig, sessions, sessionTurnText, TokenBudget, type SessionTurn } from '@agdx/sessions';
import { setup } from './helpers.js';

describe('seed 004 examples', () => {
  it('quick example: turns, context, checkpoint as JSON, turnsSince', async () => {
    const { laser } = await setup();
    const log: string[] = [];
    const console = { log: (...parts: unknown[]) => log.push(parts.join(' ')) };

    // --- seed 004 "Quick example" (only `laser.sessions()` → `sessions(laser)` changed) ---
    const encoder = new TextEncoder()
    const session = sessions(laser).create("agent-42")
    await session.append("instruction", encoder.encode("summarize the ticket"))
    await session.append("tool.call", encoder.encode("search(ticket=42)"))
    await session.append("tool.result", encoder.encode("3 comments found"))
    await session.append("model.response", encoder.encode("it is a login bug"))

    const turns = await session.context()
    for (const turn of turns) {
      console.log(turn.kind, sessionTurnText(turn))
    }

    const checkpoint = await session.checkpoint()
    const saved = JSON.stringify(checkpoint)

    await session.append("response", encoder.encode("it is a login bug"))
    const later = await session.turnsSince(Checkpoint.fromJSON(saved))
    // --- end of example ---

    expect(session.conversation.toString()).toBe('20VH546TPK5Z0M43D0HMXFF42R');
    expect(log).toEqual([
      'instruction summarize the ticket',
      'tool.call search(ticket=42)',
      'tool.result 3 comments found',
      'model.response it is a login bug',
    ]);
    expect(later.map((t) => [t.kind, sessionTurnText(t)])).toEqual([['response', 'it is a login bug']]);
    expect(JSON.parse(saved)).toHaveProperty(['per_topic', 'agent.commands']);
  });

  it('fold and context example: stateAt + replay count tool calls, contextWith a tighter chain', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('agent-42');
    await session.append('tool.call', 'a()');
    await session.append('tool.call', 'b()');
    const checkpoint = await session.checkpoint();
    await session.append('tool.result', 'ok');
    await session.append('tool.call', 'c()');
    for (let i = 0; i < 8; i++) await session.append('model.response', 'x'.repeat(400));

    // --- seed 004 "Fold and context example" ---
    const toolCalls = (count: number, turn: SessionTurn) =>
      turn.kind === "tool.call" ? count + 1 : count

    const before = await session.stateAt(checkpoint, 0, toolCalls)
    const total = await session.replay(checkpoint, before, toolCalls)

    const recent = await session.contextWith(
      new Chain([new LastN(5), new TokenBudget(500)])
    )
    // --- end of example ---

    expect(before).toBe(2);
    expect(total).toBe(3);
    // five newest are 400-byte (100-token) model responses: all fit in 500 tokens
    expect(recent).toHaveLength(5);
    expect(recent.every((t) => t.kind === 'model.response')).toBe(true);
    const tight = await session.contextWith(new Chain([new LastN(5), new TokenBudget(250)]));
    expect(tight).toHaveLength(2);
  });

  it('custom layout example: own stream and topics, reads a different history', async () => {
    const { log, laser } = await setup();
    await log.ensureStream('support');
    for (const topic of ['support.turns', 'support.replies', 'agent.llm_io', 'agent.tool_calls', 'agent.tool_results', 'agent.human_input', 'agent.memory']) {
      await log.ensureTopic({ stream: 'support', topic }, { partitions: 2 });
    }

    // --- seed 004 "Custom layout example" ---
    const sessionsFactory = sessions(laser,
      new SessionConfig()
        .stream("support")
        .topic("instruction", "support.turns")
        .topic("response", "support.replies")
        .memoryNamespace("support.sessions")
        .contextTurns(10)
        .contextTokens(800)
    )
    const session = sessionsFactory.create("ticket-7")
    // --- end of example ---

    expect(session.conversation.toString()).toBe('623WGWRZJ39EQY33M69W0Q34KE');
    const config = session.config;
    expect(config.streamName).toBe('support');
    expect(config.memoryNamespaceName).toBe('support.sessions');
    expect(config.contextTurnBound).toBe(10);
    expect(config.contextTokenBound).toBe(800);
    expect(config.topicFor('instruction')).toBe('support.turns');
    expect(config.kindFor('support.replies')).toBe('response');
    expect(config.kindFor('agent.commands')).toBeUndefined();
    expect(config.topics()).toEqual(['support.turns', 'support.replies', 'agent.llm_io', 'agent.tool_calls', 'agent.tool_results', 'agent.human_input']);
    expect(sessionsFactory.config).toBe(config);

    await expect(sessionsFactory.bootstrap(2)).resolves.toMatchObject({ stream: 'support' });
    await session.append('instruction', 'reset my password');
    for (let i = 0; i < 12; i++) await session.append('response', `reply ${i}`);
    const turns = await session.context();
    expect(turns).toHaveLength(10);
    expect(turns[0]?.message.topic).toBe('support.replies');
    // the same id on the default layout reads a different (empty) history
    expect(await sessions(laser).create('ticket-7').context()).toEqual([]);
    // memory lands in the layout's namespace
    await session.memory().remember('prefers email');
    expect((await session.memory().recall().folded().fetch()).map((i) => i.text())).toEqual(['prefers email']);
    expect(await session.memory('agent.session').recall().fetch()).toEqual([]);
  });

  it('two kinds on one topic is an InvalidError', () => {
    const laser = { defaultStream: 'demo' } as never;
    expect(() => sessions(laser, new SessionConfig().topic('instruction', 'x').topic('response', 'x'))).toThrow(InvalidError);
    expect(() => sessions(laser, new SessionConfig().topic('instruction', 'x').topic('response', 'x'))).toThrow(
      'session turn kinds instruction and response share topic x, each kind needs its own topic',
    );
  });
});
