/** How a recall orders items. */
export type RecallStrategy = 'recent' | 'keyword' | 'semantic' | 'hybrid';

/** The strategies in their spelling. */
export const RECALL_STRATEGIES: readonly RecallStrategy[] = Object.freeze(['recent', 'keyword', 'semantic', 'hybrid']);

/** The most a fresh item's score is raised for recency (+25 %), fading with age. */
export const RECENCY_BOOST = 0.25;
/** Items remembered after an item that halve its recency boost. */
export const RECENCY_HALF_LIFE_ITEMS = 100;
/** Feedback weight that doubles (or, negative, halves) an item's score. */
export const FEEDBACK_DOUBLING_WEIGHT = 4;
/** Feedback weight beyond which the score factor stops growing (and shrinking). */
export const FEEDBACK_WEIGHT_CAP = 16;
/** The `k` of reciprocal-rank fusion: each list adds `1 / (k + rank)` for rank 1, 2, …. */
export const RRF_K = 60;

/**
 * The factor a relevance score is multiplied by: `2^(w / 4) · (1 + 0.25 · 2^(−age / 100))`, where
 * `w` is the summed feedback weight clamped to ±16 and `age` the number of items remembered after
 * this one. Feedback outweighs recency: weight 4 doubles a score, a fresh item gains at most 25 %.
 */
export function scoreBoost(weight: number, age: number): number {
  const w = weight > FEEDBACK_WEIGHT_CAP ? FEEDBACK_WEIGHT_CAP : weight < -FEEDBACK_WEIGHT_CAP ? -FEEDBACK_WEIGHT_CAP : weight;
  return 2 ** (w / FEEDBACK_DOUBLING_WEIGHT) * (1 + RECENCY_BOOST * 2 ** (-Math.max(0, age) / RECENCY_HALF_LIFE_ITEMS));
}

/**
 * Reciprocal-rank fusion: each key scores `Σ 1 / (k + rank)` over the ranked lists it appears in
 * (rank starts at 1), so an item near the top of either list rises without comparing raw scores.
 */
export function fuseReciprocalRank<K>(lists: readonly (readonly K[])[], k: number = RRF_K): Map<K, number> {
  const fused = new Map<K, number>();
  for (const list of lists) list.forEach((key, i) => fused.set(key, (fused.get(key) ?? 0) + 1 / (k + i + 1)));
  return fused;
}

/** An item with its score. */
export interface Ranked<T> {
  readonly item: T;
  readonly score: number;
}

/**
 * Keeps the best `k` of the items offered (higher score first; on equal scores the larger
 * `tieBreak`, the newer item, first) in a bounded heap, so ranking many items for a short
 * recall neither sorts nor keeps them all; an item that cannot enter costs no allocation.
 */
export class TopK<T> {
  readonly #k: number;
  readonly #tieBreak: (item: T) => number;
  /** A heap whose root is the worst of the best `k` so far. */
  readonly #heap: Ranked<T>[] = [];

  constructor(k: number, tieBreak: (item: T) => number) {
    this.#k = Math.max(0, k);
    this.#tieBreak = tieBreak;
  }

  /** Negative when `a` ranks before `b`. */
  compare = (a: Ranked<T>, b: Ranked<T>): number => (b.score !== a.score ? b.score - a.score : this.#tieBreak(b.item) - this.#tieBreak(a.item));

  /** Considers one item. */
  offer(item: T, score: number): void {
    const heap = this.#heap;
    if (heap.length < this.#k) {
      heap.push({ item, score });
      this.#up(heap.length - 1);
      return;
    }
    if (this.#k === 0) return;
    const root = heap[0] as Ranked<T>;
    if (score < root.score || (score === root.score && this.#tieBreak(item) <= this.#tieBreak(root.item))) return;
    heap[0] = { item, score };
    this.#down(0);
  }

  /** The kept items, best first. */
  result(): Ranked<T>[] {
    return [...this.#heap].sort(this.compare);
  }

  #worse(i: number, j: number): boolean {
    return this.compare(this.#heap[i] as Ranked<T>, this.#heap[j] as Ranked<T>) > 0;
  }

  #swap(i: number, j: number): void {
    const heap = this.#heap;
    const t = heap[i] as Ranked<T>;
    heap[i] = heap[j] as Ranked<T>;
    heap[j] = t;
  }

  #up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#worse(i, p)) return;
      this.#swap(i, p);
      i = p;
    }
  }

  #down(i: number): void {
    const n = this.#heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.#worse(l, m)) m = l;
      if (r < n && this.#worse(r, m)) m = r;
      if (m === i) return;
      this.#swap(i, m);
      i = m;
    }
  }
}
