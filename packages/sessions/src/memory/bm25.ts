/** BM25 term-frequency saturation: the usual 1.2. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation: the usual 0.75. */
export const BM25_B = 0.75;

/** The documents holding one word: parallel arrays of document slots and term frequencies. */
interface Posting {
  slots: number[];
  tfs: number[];
  /** Live documents among `slots` (removed ones stay until the posting is compacted). */
  df: number;
}

/** Removed slots tolerated before the whole index is renumbered. */
const RENUMBER_AFTER = 4096;

/**
 * An inverted index that scores documents with Okapi BM25 and stays current as documents are
 * added and removed, so a recall pays for new items only. Documents live in numbered slots and
 * postings are flat number arrays: scoring a common word over 100,000 documents is a tight loop,
 * not a walk over maps.
 *
 * `score(d, q) = Σ over distinct query words w: idf(w) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))`
 * with `idf(w) = ln(1 + (N − df + 0.5) / (df + 0.5))`, `k1` = {@link BM25_K1}, `b` = {@link BM25_B}.
 */
export class Bm25Index<K> {
  #postings = new Map<string, Posting>();
  #slotOf = new Map<K, number>();
  #keys: (K | undefined)[] = [];
  /** Word count per slot; -1 marks a removed document. */
  #lengths: number[] = [];
  /** Distinct words per slot, so removal can lower each word's document frequency. */
  #terms: (readonly string[] | undefined)[] = [];
  #live = 0;
  #removed = 0;
  #totalLength = 0;
  /** Score accumulator reused by every query (zeroed again after each), so a query allocates nothing per document. */
  #acc = new Float64Array(0);

  /** How many documents are indexed. */
  get size(): number {
    return this.#live;
  }

  /** Indexes `words` as document `key`, replacing an earlier document of that key. */
  add(key: K, words: readonly string[]): void {
    this.remove(key);
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    const slot = this.#keys.length;
    for (const [w, tf] of counts) {
      let posting = this.#postings.get(w);
      if (posting === undefined) this.#postings.set(w, (posting = { slots: [], tfs: [], df: 0 }));
      posting.slots.push(slot);
      posting.tfs.push(tf);
      posting.df++;
    }
    this.#keys.push(key);
    this.#lengths.push(words.length);
    this.#terms.push([...counts.keys()]);
    this.#slotOf.set(key, slot);
    this.#live++;
    this.#totalLength += words.length;
  }

  /** Removes document `key` (nothing when it is not indexed). */
  remove(key: K): void {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) return;
    for (const w of this.#terms[slot] ?? []) {
      const posting = this.#postings.get(w);
      if (posting !== undefined && --posting.df === 0) this.#postings.delete(w);
    }
    this.#slotOf.delete(key);
    this.#totalLength -= this.#lengths[slot] as number;
    this.#lengths[slot] = -1;
    this.#keys[slot] = undefined;
    this.#terms[slot] = undefined;
    this.#live--;
    if (++this.#removed > RENUMBER_AFTER && this.#removed > this.#live) this.#renumber();
  }

  /** Calls `visit` with the BM25 score of every document containing at least one of `queryWords`. */
  score(queryWords: readonly string[], visit: (key: K, score: number) => void): void {
    const n = this.#live;
    if (n === 0) return;
    const avgLength = this.#totalLength / n || 1;
    const lengths = this.#lengths;
    if (this.#acc.length < lengths.length) this.#acc = new Float64Array(Math.max(1024, lengths.length * 2));
    const acc = this.#acc;
    const touched: number[] = [];
    for (const w of new Set(queryWords)) {
      const posting = this.#postings.get(w);
      if (posting === undefined) continue;
      if (posting.slots.length > 2 * posting.df + 16) compact(posting, lengths);
      const idf = Math.log(1 + (n - posting.df + 0.5) / (posting.df + 0.5));
      const { slots, tfs } = posting;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i] as number;
        const length = lengths[slot] as number;
        if (length < 0) continue;
        const tf = tfs[i] as number;
        // idf > 0 and tf ≥ 1, so a part is never 0 and 0 in `acc` means "not touched yet"
        const before = acc[slot] as number;
        if (before === 0) touched.push(slot);
        acc[slot] = before + (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength));
      }
    }
    try {
      for (const slot of touched) visit(this.#keys[slot] as K, acc[slot] as number);
    } finally {
      for (const slot of touched) acc[slot] = 0;
    }
  }

  /** Gives the live documents consecutive slots again, so removed ones stop costing memory and time. */
  #renumber(): void {
    const remap = new Int32Array(this.#keys.length).fill(-1);
    const keys: K[] = [];
    const lengths: number[] = [];
    const terms: (readonly string[] | undefined)[] = [];
    this.#lengths.forEach((length, slot) => {
      if (length < 0) return;
      remap[slot] = keys.length;
      this.#slotOf.set(this.#keys[slot] as K, keys.length);
      keys.push(this.#keys[slot] as K);
      lengths.push(length);
      terms.push(this.#terms[slot]);
    });
    for (const posting of this.#postings.values()) {
      const slots: number[] = [];
      const tfs: number[] = [];
      posting.slots.forEach((slot, i) => {
        const to = remap[slot] as number;
        if (to < 0) return;
        slots.push(to);
        tfs.push(posting.tfs[i] as number);
      });
      posting.slots = slots;
      posting.tfs = tfs;
    }
    this.#keys = keys;
    this.#lengths = lengths;
    this.#terms = terms;
    this.#removed = 0;
  }
}

/** Drops the removed documents from one posting. */
function compact(posting: Posting, lengths: readonly number[]): void {
  const slots: number[] = [];
  const tfs: number[] = [];
  posting.slots.forEach((slot, i) => {
    if ((lengths[slot] as number) < 0) return;
    slots.push(slot);
    tfs.push(posting.tfs[i] as number);
  });
  posting.slots = slots;
  posting.tfs = tfs;
}
