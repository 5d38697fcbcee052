import { describe, expect, it } from 'vitest';
import { AgdxClient } from '@agdx/agents';
import { AgdxError, InvalidError } from '@agdx/wire';
import { Checkpoint, sessions, sessionTurnText, type SessionTurn } from '@agdx/sessions';
import { setup } from './helpers.js';

describe('Checkpoint JSON form', () => {
  it('writes {"per_topic": {topic: {partition: offset}}} with integer offsets', () => {
    const cp = new Checkpoint(new Map([['agent.commands', new Map([[1, 7n], [0, 3n]])]]));
    expect(JSON.stringify(cp)).toBe('{"per_topic":{"agent.commands":{"0":3,"1":7}}}');
    expect(cp.toJSONText()).toBe('{"per_topic":{"agent.commands":{"0":3,"1":7}}}');
    expect(cp.isEmpty()).toBe(false);
    expect(new Checkpoint().isEmpty()).toBe(true);
  });

  it('keeps u64 offsets above 2^53 exact through text', () => {
    const big = (1n << 64n) - 1n;
    const cp = new Checkpoint(new Map([['t', new Map([[4294967295, big], [2, 9007199254740993n]])]]));
    const text = cp.toJSONText();
    expect(text).toBe('{"per_topic":{"t":{"2":9007199254740993,"4294967295":18446744073709551615}}}');
    const back = Checkpoint.fromJSON(text);
    expect(back.topicOffsets('t')).toEqual(new Map([[2, 9007199254740993n], [4294967295, big]]));
    // JSON.stringify never loses it either: rawJSON where available, else an exact decimal string fromJSON accepts
    expect(Checkpoint.fromJSON(JSON.stringify(cp)).topicOffsets('t')?.get(2)).toBe(9007199254740993n);
  });

  it('accepts parsed values: numbers, bigints and decimal strings', () => {
    const cp = Checkpoint.fromJSON({ per_topic: { a: { '0': 5, '1': 6n, '2': '7' } } });
    expect(cp.topicOffsets('a')).toEqual(new Map([[0, 5n], [1, 6n], [2, 7n]]));
  });

  it.each([
    ['not json', 'a checkpoint must be JSON'],
    ['{"per_topic":{"a":{"0":1}}} x', 'a checkpoint must be JSON'],
    ['[1]', 'a checkpoint must be a JSON object'],
    ['"x"', 'a checkpoint must be a JSON object'],
    ['{"per_topic":[]}', 'a checkpoint must be a JSON object'],
    ['{"per_topic":{"a":{"-1":1}}}', 'is not a u32'],
    ['{"per_topic":{"a":{"01":1}}}', 'is not a u32'],
    ['{"per_topic":{"a":{"4294967296":1}}}', 'is not a u32'],
    ['{"per_topic":{"a":{"0":-1}}}', 'is not a u64'],
    ['{"per_topic":{"a":{"0":1.5}}}', 'is not a u64'],
    ['{"per_topic":{"a":{"0":18446744073709551616}}}', 'is not a u64'],
    ['{"per_topic":{"a":{"0":"x"}}}', 'is not a u64'],
    ['{"per_topic":{"a":{"0":null}}}', 'is not a u64'],
    ['[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]', 'a checkpoint must be JSON'],
  ])('refuses %s with a typed InvalidError', (text, message) => {
    let thrown: unknown;
    try {
      Checkpoint.fromJSON(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidError);
    expect(AgdxError.is(thrown, 'invalid')).toBe(true);
    expect((thrown as Error).message).toContain(message);
  });

  it('refuses hostile parsed values without an untyped throw', () => {
    for (const value of [null, 1, undefined, { per_topic: null }, { per_topic: { a: 1 } }, { per_topic: { a: { '0': Number.NaN } } }]) {
      expect(() => Checkpoint.fromJSON(value)).toThrow(InvalidError);
    }
  });
});

describe('checkpoint, restart, replay', () => {
  it('saves state with a checkpoint as JSON, restarts on the same log, and replays only newer turns', async () => {
    const { log, laser } = await setup({ partitions: 3 });
    const toolCalls = (count: number, turn: SessionTurn): number => (turn.kind === 'tool.call' ? count + 1 : count);
    const first = sessions(laser).create('worker-1');
    const other = sessions(laser).create('worker-2');
    await first.append('instruction', 'go');
    await first.append('tool.call', 'one');
    await other.append('tool.call', 'noise');
    await first.append('tool.call', 'two');
    const state = await first.stateAt(await first.checkpoint(), 0, toolCalls);
    const saved = JSON.stringify({ state, checkpoint: await first.checkpoint() });
    expect(state).toBe(2);

    await first.append('tool.call', 'three');
    await other.append('tool.call', 'more noise');
    await first.append('response', 'done');

    // "restart": a new connection, client and factory over the same log data
    const laser2 = AgdxClient.from(log.connect(), { stream: 'demo' });
    const restored = JSON.parse(saved) as { state: number; checkpoint: unknown };
    const session = sessions(laser2).create('worker-1');
    const seen: string[] = [];
    const total = await session.replay(Checkpoint.fromJSON(restored.checkpoint), restored.state, (count, turn) => {
      seen.push(sessionTurnText(turn));
      return toolCalls(count, turn);
    });
    expect(seen).toEqual(['three', 'done']);
    expect(total).toBe(3);
    const before = await session.turnsAt(Checkpoint.fromJSON(restored.checkpoint));
    expect(before.map(sessionTurnText)).toEqual(['go', 'one', 'two']);
  });

  it('turnsAt reads nothing on partitions the checkpoint does not name; turnsSince starts them at 0', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('s');
    await session.append('instruction', 'a');
    const empty = new Checkpoint();
    expect(await session.turnsAt(empty)).toEqual([]);
    expect((await session.turnsSince(empty)).map(sessionTurnText)).toEqual(['a']);
    await expect(session.turnsAt({} as never)).rejects.toThrow(InvalidError);
  });
});
