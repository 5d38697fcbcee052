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

/**
 * The best `k` of `items` in order (best first) under `compare` (negative when `a` is better).
 * Keeps a bounded heap instead of sorting everything, so a short recall over many items is cheap.
 */
export function topK<T>(items: readonly T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  if (items.length <= k * 4) return [...items].sort(compare).slice(0, k);
  // a heap whose root is the worst of the best k seen so far
  const heap: T[] = [];
  const worse = (i: number, j: number): boolean => compare(heap[i] as T, heap[j] as T) > 0;
  const swap = (i: number, j: number): void => {
    const t = heap[i] as T;
    heap[i] = heap[j] as T;
    heap[j] = t;
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(i, p)) break;
        swap(i, p);
        i = p;
      }
    } else if (compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort(compare);
}
