import { describe, expect, it } from 'vitest';
import { PositionWindow } from '../src/position-window.js';

describe('PositionWindow', () => {
  it('holds a key for span records of its partition: a copy at offset e + span - 1 is seen, one at e + span is new', () => {
    const window = new PositionWindow(4);
    expect(window.seen('p', 10n, 'a')).toBe(false);
    expect(window.seen('p', 13n, 'a')).toBe(true);
    expect(window.seen('p', 14n, 'a')).toBe(false);
    // the copy at 14 is a first copy again, held until 18
    expect(window.seen('p', 17n, 'a')).toBe(true);
    expect(window.size).toBe(1);
  });

  it('keeps partitions apart and reports each key leaving once', () => {
    const forgotten: string[] = [];
    const window = new PositionWindow(2, (key) => forgotten.push(key));
    window.note('p', 0n, 'a');
    window.note('q', 0n, 'b');
    window.advance('p', 5n);
    expect(forgotten).toEqual(['a']);
    expect(window.has('a')).toBe(false);
    expect(window.has('b')).toBe(true);
    expect([...window.partitions()]).toEqual([['q', [{ offset: 0n, key: 'b' }]]]);
  });

  it('a key noted again belongs to its newer entry: the older one leaving does not drop it', () => {
    const forgotten: string[] = [];
    const window = new PositionWindow(3, (key) => forgotten.push(key));
    window.note('p', 0n, 'a');
    window.note('p', 2n, 'a');
    expect(window.size).toBe(1);
    window.advance('p', 3n);
    expect(window.has('a')).toBe(true);
    expect(forgotten).toEqual([]);
    expect([...window.partitions()]).toEqual([['p', [{ offset: 2n, key: 'a' }]]]);
    window.advance('p', 5n);
    expect(forgotten).toEqual(['a']);
    expect(window.size).toBe(0);
  });

  it('stays bounded by the span however many keys pass through', () => {
    const window = new PositionWindow(100);
    for (let i = 0; i < 10_000; i++) window.seen('p', BigInt(i), `k${i}`);
    expect(window.size).toBe(100);
    expect([...window.partitions()][0]?.[1].length).toBe(100);
    expect(window.seen('p', 10_000n, 'k9901')).toBe(true);
    expect(window.seen('p', 10_000n, 'k9900')).toBe(false);
  });
});
