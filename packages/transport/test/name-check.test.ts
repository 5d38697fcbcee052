// checkName remembers names that passed (every read and append checks its stream and topic): the
// memory must never let a bad name through, whatever was checked before it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkName, InvalidArgumentError, MAX_NAME_BYTES } from '@agdx/transport';

function refused(name: unknown, what = 'stream'): boolean {
  try {
    checkName(name as string, what);
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return true;
  }
}

describe('checkName', () => {
  it('accepts 1..255 UTF-8 bytes, again and again, and refuses the rest every time', () => {
    const good = ['s', 'agent.commands', 'é'.repeat(127), 'x'.repeat(MAX_NAME_BYTES)];
    const bad: unknown[] = ['', 'x'.repeat(MAX_NAME_BYTES + 1), 'é'.repeat(128), '\ud800', 'a\udfffb', 7, undefined];
    for (let round = 0; round < 3; round++) {
      for (const name of good) expect(checkName(name, 'topic')).toBe(name);
      for (const name of bad) expect(refused(name)).toBe(true);
    }
  });

  it('stays exact when more names pass than it remembers', () => {
    for (let i = 0; i < 1_000; i++) {
      expect(checkName(`topic-${i}`, 'topic')).toBe(`topic-${i}`);
      if (i % 100 === 0) expect(refused('\ud800'.repeat(1 + (i % 3)))).toBe(true);
    }
    expect(checkName('topic-3', 'group')).toBe('topic-3');
  });
  it('gives every name the same answer whatever was checked before it (random call histories, memory emptied on the way)', () => {
    // The rule written out: a string of well-formed UTF-16 whose UTF-8 form is 1..255 bytes.
    const wellFormed = (s: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
    const accepted = (name: unknown): boolean => {
      if (typeof name !== 'string' || name.length > MAX_NAME_BYTES || !wellFormed(name)) return false;
      const bytes = new TextEncoder().encode(name).length;
      return bytes >= 1 && bytes <= MAX_NAME_BYTES;
    };
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.string({ unit: fc.constantFrom('a', '\u00e9', '\u20ac', '\ud83d\ude00', '\ud800', '\udc00'), minLength: 60, maxLength: 140 }),
      fc.constantFrom('', 'x'.repeat(MAX_NAME_BYTES), 'x'.repeat(MAX_NAME_BYTES + 1), '\u00e9'.repeat(127), '\u00e9'.repeat(128)),
    );
    const value = fc.oneof({ weight: 6, arbitrary: text }, { weight: 1, arbitrary: fc.constantFrom<unknown>(7, null, undefined, new String('s'), ['s'], { toString: () => 's' }) });
    fc.assert(
      fc.property(fc.array(fc.oneof(value, fc.nat(400).map((i) => `memo-${i}`)), { minLength: 1, maxLength: 600 }), (calls) => {
        for (const name of calls) {
          if (accepted(name)) expect(checkName(name as string, 'stream')).toBe(name);
          else expect(refused(name)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
