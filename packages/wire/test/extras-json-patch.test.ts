import { describe, expect, test } from 'vitest';
import { applyJsonPatch } from '@agdx/wire';
import { errorOf, fixtureJson, oracle } from './extras-support/fixtures.js';

describe('JSON Patch (upstream-newer/json_patch/cases.json)', () => {
  const cases = fixtureJson<any[]>('upstream-newer/json_patch/cases.json');
  test.each(cases)('$name', (c) => {
    const before = structuredClone(c.document);
    if (c.error) {
      const err = errorOf(() => applyJsonPatch(c.document, c.patch));
      expect(err?.class).toBe('InvalidError');
    } else {
      expect(applyJsonPatch(c.document, c.patch)).toEqual(c.result);
    }
    expect(c.document).toEqual(before);
  });
});

describe('JSON Patch (oracle/agui.json json_patch)', () => {
  const data = oracle('agui');
  test.each(data.sections.json_patch as any[])('$id', (c) => {
    const before = structuredClone(c.document);
    if (c.ok) {
      expect(applyJsonPatch(c.document, c.patch)).toEqual(c.result);
    } else {
      const err = errorOf(() => applyJsonPatch(c.document, c.patch));
      expect(err?.class).toBe(c.error.class);
      expect(err?.message).toBe(c.error.message);
    }
    expect(c.document).toEqual(before);
  });

  test('a failing later op leaves the document unchanged (atomic)', () => {
    const doc = { a: 1, list: [1] };
    const err = errorOf(() => applyJsonPatch(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'remove', path: '/zzz' }]));
    expect(err?.message).toBe('JSON Patch path `/zzz` does not exist');
    expect(doc).toEqual({ a: 1, list: [1] });
  });

  test('a move checks its target after the removal', () => {
    expect(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'move', from: '/l/0', path: '/l/2' }])).toEqual({ l: [2, 3, 1] });
    expect(errorOf(() => applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'move', from: '/l/0', path: '/l/3' }]))?.message).toBe(
      'JSON Patch array index `3` is out of bounds',
    );
  });

  test('prototype pollution is refused', () => {
    expect(errorOf(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: 1 }]))?.message).toMatch(/reserved property/);
    expect(({} as any).polluted).toBeUndefined();
  });
});
