// checkName remembers names that passed (every read and append checks its stream and topic): the
// memory must never let a bad name through, whatever was checked before it.
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
});
