import { describe, expect, it } from 'vitest';
import { RecencyMap } from '../src/dedup/recency-map.js';

/** A small deterministic PRNG (mulberry32), so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The reference: a Map in insertion order, re-set by delete + set, oldest through a fresh iterator. */
function oldestOf(model: Map<string, number>): string | undefined {
  return model.keys().next().value;
}

describe('RecencyMap', () => {
  it('names the oldest key, and a key set again becomes the newest', () => {
    const map = new RecencyMap<string, number>();
    expect(map.oldest()).toBeUndefined();
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.oldest()).toBe('a');
    map.set('a', 4);
    expect([map.oldest(), map.get('a'), map.size]).toEqual(['b', 4, 3]);
    expect(map.delete('b')).toBe(true);
    expect(map.delete('b')).toBe(false);
    expect([map.oldest(), map.has('b'), map.get('b')]).toEqual(['c', false, undefined]);
    map.delete('c');
    map.delete('a');
    expect([map.oldest(), map.size]).toEqual([undefined, 0]);
    map.set('a', 5);
    expect(map.oldest()).toBe('a');
    map.clear();
    expect([map.oldest(), map.size, map.has('a')]).toEqual([undefined, 0, false]);
    map.set('d', 6);
    expect([map.oldest(), map.get('d')]).toEqual(['d', 6]);
  });

  it('agrees with a Map kept in insertion order over random sets, re-sets, deletes, evictions and clears', () => {
    for (const seed of [1, 2, 3, 4]) {
      const next = random(seed);
      const map = new RecencyMap<string, number>();
      const model = new Map<string, number>();
      // few names, so re-sets and deletes of kept keys are common and the queue compacts often
      const names = Array.from({ length: 40 + seed * 30 }, (_, i) => `k${i}`);
      for (let step = 0; step < 20_000; step++) {
        const key = names[Math.floor(next() * names.length)] as string;
        const roll = next();
        if (roll < 0.55) {
          map.set(key, step);
          model.delete(key);
          model.set(key, step);
        } else if (roll < 0.75) {
          expect(map.delete(key)).toBe(model.delete(key));
        } else if (roll < 0.9995) {
          // forget the oldest, as the bounded caches do
          const oldest = map.oldest();
          expect(oldest).toBe(oldestOf(model));
          if (oldest !== undefined) {
            map.delete(oldest);
            model.delete(oldest);
          }
        } else {
          map.clear();
          model.clear();
        }
        expect(map.size).toBe(model.size);
        expect(map.get(key)).toBe(model.get(key));
        expect(map.oldest()).toBe(oldestOf(model));
      }
      // what is left comes out oldest first, in the model's order
      const drained: string[] = [];
      for (let oldest = map.oldest(); oldest !== undefined; oldest = map.oldest()) {
        drained.push(oldest);
        map.delete(oldest);
      }
      expect(drained).toEqual([...model.keys()]);
    }
  });

  it('keeps its order through many re-sets of the same keys with nothing forgotten', () => {
    const map = new RecencyMap<number, number>();
    for (let i = 0; i < 100; i++) map.set(i, i);
    // every key re-set many times over: the queue compacts again and again
    for (let round = 0; round < 50; round++) for (let i = 0; i < 100; i += 3) map.set(i, round);
    const order: number[] = [];
    for (let oldest = map.oldest(); oldest !== undefined; oldest = map.oldest()) {
      order.push(oldest);
      map.delete(oldest);
    }
    const untouched = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 3 !== 0);
    const touched = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 3 === 0);
    expect(order).toEqual([...untouched, ...touched]);
  });
});
