import { describe, expect, it } from 'vitest';
import { decodeMemoryRecord, encodeMemoryRecord, SessionConfig, sessions, toContextBlock } from '@agdx/sessions';
import { CodecError, encodeCbor, InvalidError, type CborValue } from '@agdx/wire';
import { setup } from './helpers.js';

describe('session memory on a plain log (folded in process)', () => {
  it('remember, recall, search, block, forget, improve; scoped by conversation and namespace', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('memo');
    const memory = session.memory();
    expect(memory.namespace).toBe('agent.session');
    const a = await memory.remember('likes tea');
    const b = await memory.remember('works nights');
    await memory.remember('speaks french');
    await factory.create('someone-else').memory().remember('not mine');
    await session.memory('other.ns').remember('other namespace');

    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual(['speaks french', 'works nights', 'likes tea']);
    expect((await memory.recall().folded().limit(2).fetch()).map((i) => i.text())).toEqual(['speaks french', 'works nights']);
    // keyword recall uses the text: only the item about tea, not every item
    expect((await memory.search('tea')).map((i) => i.text())).toEqual(['likes tea']);
    expect((await memory.search('Nights?!')).map((i) => i.text())).toEqual(['works nights']);
    expect(await memory.search('coffee')).toEqual([]);
    expect(await memory.block()).toBe('speaks french\n\nworks nights\n\nlikes tea');
    expect(await memory.block(4)).toBe('speaks french\n\n[... 2 more recalled item(s) omitted ...]');

    await memory.forget(b);
    await memory.improve(a, 2);
    const items = await memory.recall().fetch();
    expect(items.map((i) => [i.text(), i.weight])).toEqual([
      ['likes tea', 2],
      ['speaks french', 0],
    ]);
    expect(items[0]?.id).toBe(a);
    expect((await memory.memory('other.ns').recall().fetch()).map((i) => i.text())).toEqual(['other namespace']);
  });

  it('named slots are replaced by later writes; consolidate keeps the newest items', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('slots').memory();
    expect(await memory.remember('v1', { key: 'profile', kind: 'entity' })).toBe('agent.session/profile');
    await memory.remember('v2', { key: 'profile', kind: 'entity' });
    expect((await memory.recall().fetch()).map((i) => [i.text(), i.kind])).toEqual([['v2', 'entity']]);
    for (const t of ['one', 'two', 'three']) await memory.remember(t);
    const report = await memory.consolidate(2);
    expect(report).toEqual({ scanned: 4, kept: 2, forgotten: 2 });
    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual(['three', 'two']);
  });

  it('memory records round-trip and hostile bodies are CodecErrors', () => {
    for (const record of [
      { kind: 'item', id: 'X', itemKind: 'fact', body: new Uint8Array([1, 2, 255]) },
      { kind: 'forget', target: 'X' },
      { kind: 'feedback', target: 'X', weight: 1.5 },
    ] as const) {
      expect(decodeMemoryRecord(encodeMemoryRecord(record))).toEqual(record);
    }
    const bad = [
      new Uint8Array([0xff]),
      encodeCbor(1),
      encodeCbor(new Map([['Item', 1]])),
      encodeCbor(new Map([['Item', new Map<CborValue, CborValue>([['id', 'x'], ['kind', 'nope'], ['body', []]])]])),
      encodeCbor(new Map([['Item', new Map<CborValue, CborValue>([['id', 'x'], ['kind', 'fact'], ['body', [256]]])]])),
      encodeCbor(new Map([['Feedback', new Map([['target', 'x'], ['weight', 'heavy']])]])),
      encodeCbor(new Map([['Other', new Map()]])),
    ];
    for (const bytes of bad) expect(() => decodeMemoryRecord(bytes)).toThrow(CodecError);
  });

  it('toContextBlock always renders one item', () => {
    const item = (t: string) => ({ text: () => t });
    expect(toContextBlock([item('x'.repeat(100))], 1)).toBe('x'.repeat(100));
    expect(toContextBlock([])).toBe('');
  });

  it('a namespace, stream or topic name over 255 UTF-8 bytes is refused when it is given, not at the first write', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('names');
    const wide = 'é'.repeat(128); // 128 characters, 256 UTF-8 bytes
    expect(() => session.memory(wide)).toThrow(InvalidError);
    expect(() => session.memory('é'.repeat(127))).not.toThrow();
    expect(() => new SessionConfig().memoryNamespace(wide)).toThrow(InvalidError);
    expect(() => new SessionConfig().stream(wide)).toThrow(InvalidError);
    expect(() => new SessionConfig().topic('instruction', wide)).toThrow(InvalidError);
    // the longest name that fits is written and read back
    const memory = session.memory('é'.repeat(127));
    await memory.remember('kept');
    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual(['kept']);
  });
});
