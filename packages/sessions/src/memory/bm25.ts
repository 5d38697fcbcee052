/** BM25 term-frequency saturation: the usual 1.2. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation: the usual 0.75. */
export const BM25_B = 0.75;

interface Doc {
  readonly length: number;
  /** Each distinct word once, so removal touches only this document's postings. */
  readonly terms: readonly string[];
}

/**
 * An inverted index that scores documents with Okapi BM25 and stays current as documents are
 * added and removed, so a recall pays for new items only.
 *
 * `score(d, q) = Σ over distinct query words w: idf(w) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))`
 * with `idf(w) = ln(1 + (N − df + 0.5) / (df + 0.5))`, `k1` = {@link BM25_K1}, `b` = {@link BM25_B}.
 */
export class Bm25Index<K> {
  readonly #postings = new Map<string, Map<K, number>>();
  readonly #docs = new Map<K, Doc>();
  #totalLength = 0;

  /** How many documents are indexed. */
  get size(): number {
    return this.#docs.size;
  }

  /** Indexes `words` as document `key`, replacing an earlier document of that key. */
  add(key: K, words: readonly string[]): void {
    if (this.#docs.has(key)) this.remove(key);
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const [w, tf] of counts) {
      let posting = this.#postings.get(w);
      if (posting === undefined) this.#postings.set(w, (posting = new Map()));
      posting.set(key, tf);
    }
    this.#docs.set(key, { length: words.length, terms: [...counts.keys()] });
    this.#totalLength += words.length;
  }

  /** Removes document `key` (nothing when it is not indexed). */
  remove(key: K): void {
    const doc = this.#docs.get(key);
    if (doc === undefined) return;
    for (const w of doc.terms) {
      const posting = this.#postings.get(w);
      if (posting === undefined) continue;
      posting.delete(key);
      if (posting.size === 0) this.#postings.delete(w);
    }
    this.#docs.delete(key);
    this.#totalLength -= doc.length;
  }

  /** The BM25 score of every document containing at least one of `queryWords`. */
  score(queryWords: readonly string[]): Map<K, number> {
    const scores = new Map<K, number>();
    const n = this.#docs.size;
    if (n === 0) return scores;
    const avgLength = this.#totalLength / n || 1;
    for (const w of new Set(queryWords)) {
      const posting = this.#postings.get(w);
      if (posting === undefined) continue;
      const df = posting.size;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const [key, tf] of posting) {
        const length = (this.#docs.get(key) as Doc).length;
        const part = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength));
        scores.set(key, (scores.get(key) ?? 0) + part);
      }
    }
    return scores;
  }
}
