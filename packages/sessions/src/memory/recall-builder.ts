import type { MessagePosition } from '@agdx/agents';
import { InvalidError, UnsupportedError } from '@agdx/wire';
import { toContextBlock } from './context-block.js';
import { itemText, type IndexedItem, type MemoryIndex } from './memory-index.js';
import type { MemoryKind } from './memory-record.js';
import { RECALL_STRATEGIES, RRF_K, scoreBoost, TopK, type RecallStrategy } from './ranking.js';
import { tokenize } from './tokenize.js';
import { dot, embedTexts, unitVector, type Embedder } from './vector.js';

/** How many items a recall returns by default. */
export const DEFAULT_RECALL_LIMIT = 50;
/** The longest recall query, in UTF-16 code units. */
export const MAX_RECALL_QUERY_LENGTH = 65_536;
/** Query words a keyword recall uses (the rest are ignored). */
const MAX_QUERY_WORDS = 1024;

/** One recalled memory item. */
export interface MemoryItem {
  /** The memory id (ULID text, or `<namespace>/<key>` for a named slot). */
  readonly id: string;
  /** The item kind. */
  readonly kind: MemoryKind;
  /** The stored bytes. */
  readonly body: Uint8Array;
  /** Summed feedback weight. */
  readonly weight: number;
  /** The ranking score under the recall's strategy (0 for `recent`); higher ranked first. */
  readonly score: number;
  /** Where the item was written. */
  readonly position: MessagePosition;
  /** The body as UTF-8 (invalid bytes replaced). */
  text(): string;
}

/** What a recall reads: the folded index and, for a vector memory handle, the embedder. @internal */
export interface RecallSource {
  index(signal?: AbortSignal): Promise<MemoryIndex>;
  readonly embedder: Embedder | undefined;
}

interface Scored {
  readonly item: IndexedItem;
  readonly score: number;
}

/**
 * Highest feedback weight first, then newest first. Items without feedback are read from the
 * newest end, so the cost follows `limit` and the number of items with feedback, not the total.
 */
function recent(index: MemoryIndex, limit: number): IndexedItem[] {
  const weighted = index.weighted().sort((a, b) => {
    const d = index.weight(b.id) - index.weight(a.id);
    return d !== 0 ? d : b.order - a.order;
  });
  const positive = weighted.filter((item) => index.weight(item.id) > 0);
  const negative = weighted.filter((item) => index.weight(item.id) < 0);
  const out = positive.slice(0, limit);
  if (out.length < limit) out.push(...index.newest(limit - out.length, true));
  if (out.length < limit) out.push(...negative.slice(0, limit - out.length));
  return out;
}

function toMemoryItem(index: MemoryIndex, item: IndexedItem, score: number): MemoryItem {
  return {
    id: item.id,
    kind: item.kind,
    body: item.body,
    weight: index.weight(item.id),
    score,
    position: item.position,
    text: (): string => itemText(item),
  };
}

/** The tie break of every ranking: the newer item first. */
function newer(item: IndexedItem): number {
  return item.order;
}

/**
 * A recall in the making: pick a strategy (`recent`, `keyword(text)`, `semantic(text)`,
 * `hybrid(text)`), a `limit`, optionally a `tokenBudget`, then `fetch()` or `block()`. On a log
 * without a managed key-value view (plain Iggy, the dev server, MemoryLog) every recall reads the
 * folded index in process, which continues from where the last recall stopped; `folded()` says
 * so explicitly.
 */
export class RecallBuilder {
  readonly #source: RecallSource;
  #limit = DEFAULT_RECALL_LIMIT;
  #tokenBudget: number | undefined;
  #strategy: RecallStrategy = 'recent';
  #query = '';

  /** @internal Built by `SessionMemory.recall`. */
  constructor(source: RecallSource) {
    this.#source = source;
  }

  /** At most `n` items (default 50). */
  limit(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidError('recall limit must be a non-negative integer');
    this.#limit = n;
    return this;
  }

  /** The newest items, highest feedback weight first (the default strategy). */
  recent(): this {
    return this.strategy('recent');
  }

  /** Items containing the words of `text`, ranked by BM25 with feedback and recency (see the README). */
  keyword(text: string): this {
    return this.strategy('keyword', text);
  }

  /** Items nearest to `text` by cosine similarity of the embedder's vectors; needs a vector memory handle. */
  semantic(text: string): this {
    return this.strategy('semantic', text);
  }

  /** Keyword and semantic rankings fused by reciprocal rank; needs a vector memory handle. */
  hybrid(text: string): this {
    return this.strategy('hybrid', text);
  }

  /**
   * Chooses the strategy by name; every strategy but `recent` needs the query `text`.
   * @throws InvalidError for an unknown strategy or a missing, empty or over-long query.
   * @throws UnsupportedError for `semantic` or `hybrid` on a handle without an embedder.
   */
  strategy(strategy: RecallStrategy, text?: string): this {
    if (!RECALL_STRATEGIES.includes(strategy)) throw new InvalidError(`unknown recall strategy ${JSON.stringify(String(strategy))}`);
    if (strategy !== 'recent') {
      if (typeof text !== 'string') throw new InvalidError(`a ${strategy} recall takes text`);
      if (text.length > MAX_RECALL_QUERY_LENGTH) throw new InvalidError(`a recall query is limited to ${MAX_RECALL_QUERY_LENGTH} characters`);
      if (text.trim().length === 0) throw new InvalidError(`a ${strategy} recall needs non-empty text`);
      if ((strategy === 'semantic' || strategy === 'hybrid') && this.#source.embedder === undefined) {
        throw new UnsupportedError(`a ${strategy} recall needs a vector memory handle: memory.withEmbedder(embedder)`);
      }
      this.#query = text;
    }
    this.#strategy = strategy;
    return this;
  }

  /** The token budget of {@link RecallBuilder.block}. */
  tokenBudget(tokens: number): this {
    if (!Number.isSafeInteger(tokens) || tokens < 0) throw new InvalidError('token budget must be a non-negative integer');
    this.#tokenBudget = tokens;
    return this;
  }

  /** Rebuild memory from the topic in this process (what every recall does on a plain log). */
  folded(): this {
    return this;
  }

  /**
   * The recalled items, best first.
   * @throws InvalidError when a keyword or hybrid query has no word (only punctuation or spaces).
   * @throws EmbedderError when the embedder throws or returns a bad vector.
   */
  async fetch(signal?: AbortSignal): Promise<MemoryItem[]> {
    const index = await this.#source.index(signal);
    const ranked = await this.#rank(index, signal);
    return ranked.map(({ item, score }) => toMemoryItem(index, item, score));
  }

  /** @internal The newest `limit` items regardless of weight (what `consolidate` keeps). */
  async newestFirst(signal?: AbortSignal): Promise<MemoryItem[]> {
    const index = await this.#source.index(signal);
    return index.newest(this.#limit).map((item) => toMemoryItem(index, item, 0));
  }

  /** The recalled items as one prompt-ready string, cut to the token budget by `toContextBlock`. */
  async block(tokenBudget?: number, signal?: AbortSignal): Promise<string> {
    return toContextBlock(await this.fetch(signal), tokenBudget ?? this.#tokenBudget);
  }

  async #rank(index: MemoryIndex, signal: AbortSignal | undefined): Promise<Scored[]> {
    const limit = this.#limit;
    switch (this.#strategy) {
      case 'recent':
        return recent(index, limit).map((item) => ({ item, score: 0 }));
      case 'keyword':
        return this.#keyword(index, limit);
      case 'semantic':
        return (await this.#semantic(index, signal, limit)).ranked;
      case 'hybrid':
        return this.#hybrid(index, signal, limit);
    }
  }

  /**
   * Reciprocal-rank fusion without sorting either list whole. An item below rank `depth` in both
   * lists fuses to less than `2 / (61 + depth)`, under the `limit`-th item of either list
   * (`1 / (60 + limit)`), so only the union of the two top-`depth` lists can be returned; the
   * rank of such an item in the list whose top it missed is counted from that list's scores.
   */
  async #hybrid(index: MemoryIndex, signal: AbortSignal | undefined, limit: number): Promise<Scored[]> {
    const depth = 2 * limit + RRF_K;
    const keywordScores = new Map<IndexedItem, number>();
    const keyword = this.#keyword(index, depth, keywordScores);
    const { ranked: semantic, score: semanticScore, all: semanticAll } = await this.#semantic(index, signal, depth);
    const keywordSorted = Float64Array.from(keywordScores.values()).sort();
    const semanticSorted = semanticAll.sort();
    const keywordRank = new Map(keyword.map((s, i) => [s.item, i + 1]));
    const semanticRank = new Map(semantic.map((s, i) => [s.item, i + 1]));
    const best = new TopK<IndexedItem>(limit, newer);
    for (const item of new Set([...keyword, ...semantic].map((s) => s.item))) {
      const k = keywordScores.get(item);
      const kRank = keywordRank.get(item) ?? (k === undefined ? undefined : 1 + countAbove(keywordSorted, k));
      const sRank = semanticRank.get(item) ?? 1 + countAbove(semanticSorted, semanticScore(item));
      best.offer(item, (kRank === undefined ? 0 : 1 / (RRF_K + kRank)) + 1 / (RRF_K + sRank));
    }
    return best.result();
  }

  /** The best `keep` keyword matches, best first; `all` receives every match's score. */
  #keyword(index: MemoryIndex, keep: number, all?: Map<IndexedItem, number>): Scored[] {
    const words = tokenize(this.#query, MAX_QUERY_WORDS);
    if (words.length === 0) throw new InvalidError('a keyword recall needs at least one word (letters or digits)');
    const best = new TopK<IndexedItem>(keep, newer);
    index.keywordScores(words, (item, bm25) => {
      const score = bm25 * scoreBoost(index.weight(item.id), index.age(item));
      all?.set(item, score);
      best.offer(item, score);
    });
    return best.result();
  }

  /**
   * The `keep` items nearest to the query, best first, with the scoring function and every
   * item's score; items without a usable vector are embedded first.
   */
  async #semantic(
    index: MemoryIndex,
    signal: AbortSignal | undefined,
    keep: number,
  ): Promise<{ ranked: Scored[]; score: (item: IndexedItem) => number; all: Float64Array }> {
    const embedder = this.#source.embedder as Embedder;
    const dimensions = embedder.dimensions;
    const [query] = (await embedTexts(embedder, [this.#query], signal)) as [Float32Array];
    const unitQuery = unitVector(query);
    const missing: IndexedItem[] = [];
    for (const item of index.items()) if (index.vector(item, dimensions) === undefined) missing.push(item);
    if (missing.length > 0) {
      const vectors = await embedTexts(embedder, missing.map(itemText), signal);
      missing.forEach((item, i) => index.remember(item, vectors[i] as Float32Array));
    }
    const score = (item: IndexedItem): number => {
      const v = index.vector(item, dimensions);
      // unit vectors: the dot product is the cosine, mapped to [0, 1] so that the boost keeps its meaning
      const similarity = v === undefined ? 0 : (1 + Math.max(-1, Math.min(1, dot(unitQuery, v)))) / 2;
      return similarity * scoreBoost(index.weight(item.id), index.age(item));
    };
    const best = new TopK<IndexedItem>(keep, newer);
    const all = new Float64Array(index.size);
    let n = 0;
    for (const item of index.items()) {
      const s = score(item);
      all[n++] = s;
      best.offer(item, s);
    }
    return { ranked: best.result(), score, all };
  }
}

/** How many values of the ascending `sorted` are greater than `value`. */
function countAbove(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return sorted.length - lo;
}
