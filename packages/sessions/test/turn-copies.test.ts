/**
 * The copy filter of the turn reads remembers a bounded number of identities: the newest
 * CONTEXT_READ_WINDOW identified turns it took. A copy within them is left out; one further
 * behind its first is taken again, so a long replay holds at most that many identities.
 */
import { CONTEXT_READ_WINDOW } from '@agdx/sessions';
import { describe, expect, it } from 'vitest';
import { FirstCopies } from '../src/turns/turn-copies.js';

describe('FirstCopies', () => {
  it('takes a turn without an identity every time, and an identified one once', () => {
    const copies = new FirstCopies();
    expect([copies.take(undefined), copies.take(undefined)]).toEqual([true, true]);
    expect([copies.take('a'), copies.take('b'), copies.take('a'), copies.take('b')]).toEqual([true, true, false, false]);
  });

  it('forgets the oldest identity once it has remembered CONTEXT_READ_WINDOW newer ones', () => {
    const copies = new FirstCopies();
    expect(copies.take('first')).toBe(true);
    for (let i = 1; i < CONTEXT_READ_WINDOW; i++) expect(copies.take(`turn ${i}`)).toBe(true);
    // 10,000 remembered: the first is still among them
    expect(copies.take('first')).toBe(false);
    expect(copies.take('one more')).toBe(true);
    // the first was pushed out; turn 1 is now the oldest remembered
    expect(copies.take('first')).toBe(true);
    expect(copies.take('turn 2')).toBe(false);
    // skipped copies take no place: 'turn 2' is still remembered after them
    expect(copies.take('turn 2')).toBe(false);
  });
});
