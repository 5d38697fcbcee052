import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/memory/bm25.js';

function scores(index: Bm25Index<string>, words: string[]): Map<string, number> {
  const out = new Map<string, number>();
  index.score(words, (key, score) => out.set(key, score));
  return out;
}

describe('Bm25Index', () => {
  it('scores by the documented formula', () => {
    const index = new Bm25Index<string>();
    index.add('a', ['tea', 'tea', 'milk']);
    index.add('b', ['coffee', 'milk']);
    const got = scores(index, ['tea', 'tea']);
    // N = 2, df(tea) = 1, avgdl = 2.5, |a| = 3, tf = 2; a repeated query word counts once
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * 2 * 2.2) / (2 + 1.2 * (1 - 0.75 + (0.75 * 3) / 2.5));
    expect([...got.keys()]).toEqual(['a']);
    expect(got.get('a')).toBeCloseTo(expected, 12);
    expect(scores(index, ['absent']).size).toBe(0);
  });

  it('after removals, replacements and renumbering it scores as an index built from the survivors', () => {
    const words = (i: number): string[] => [`w${i % 7}`, `w${i % 13}`, `w${i % 29}`, ...(i % 3 === 0 ? [`w${i % 5}`] : [])];
    const index = new Bm25Index<string>();
    for (let i = 0; i < 12_000; i++) index.add(`d${i}`, words(i));
    for (let i = 0; i < 12_000; i++) if (i % 10 !== 0) index.remove(`d${i}`);
    index.remove('never-added');
    // a replacement keeps one document under the key
    index.add('d0', ['w1', 'w2']);
    const fresh = new Bm25Index<string>();
    for (let i = 10; i < 12_000; i += 10) fresh.add(`d${i}`, words(i));
    fresh.add('d0', ['w1', 'w2']);
    expect(index.size).toBe(fresh.size);
    for (const query of [['w1'], ['w3', 'w11'], ['w0', 'w4', 'w28']]) {
      const a = scores(index, query);
      const b = scores(fresh, query);
      expect(a.size).toBe(b.size);
      for (const [key, score] of b) expect(a.get(key)).toBeCloseTo(score, 9);
    }
  });
});

describe('TopK', () => {
  it('keeps what a full sort would put first, newer first on equal scores', async () => {
    const { TopK } = await import('../src/memory/ranking.js');
    let x = 7;
    const items = Array.from({ length: 2000 }, (_, order) => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return { order, score: x % 97 };
    });
    for (const k of [0, 1, 5, 50, 3000]) {
      const top = new TopK<{ order: number; score: number }>(k, (i) => i.order);
      for (const item of items) top.offer(item, item.score);
      const expected = [...items].sort((a, b) => b.score - a.score || b.order - a.order).slice(0, k);
      expect(top.result().map((r) => r.item)).toEqual(expected);
    }
  });
});
