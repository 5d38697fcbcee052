import type { MessagePosition } from '@agdx/agents';
import { InvalidError, UnsupportedError } from '@agdx/wire';
import { toContextBlock } from './context-block.js';
import { itemText, type IndexedItem, type MemoryIndex } from './memory-index.js';
import type { MemoryKind } from './memory-record.js';
import { fuseReciprocalRank, RECALL_STRATEGIES, scoreBoost, topK, type RecallStrategy } from './ranking.js';
import { tokenize } from './tokenize.js';
import { cosine, embedTexts, type Embedder } from './vector.js';

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

/** Higher score first, then newest first. */
function byScore(a: Scored, b: Scored): number {
  return b.score !== a.score ? b.score - a.score : b.item.order - a.item.order;
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
        return topK(this.#keyword(index), limit, byScore);
      case 'semantic':
        return topK(await this.#semantic(index, signal), limit, byScore);
      case 'hybrid': {
        const keyword = this.#keyword(index).sort(byScore);
        const semantic = (await this.#semantic(index, signal)).sort(byScore);
        const items = new Map<string, IndexedItem>(semantic.map((s) => [s.item.id, s.item]));
        const fused = fuseReciprocalRank([keyword.map((s) => s.item.id), semantic.map((s) => s.item.id)]);
        const all = [...fused].map(([id, score]) => ({ item: items.get(id) as IndexedItem, score }));
        return topK(all, limit, byScore);
      }
    }
  }

  #keyword(index: MemoryIndex): Scored[] {
    const words = tokenize(this.#query, MAX_QUERY_WORDS);
    if (words.length === 0) throw new InvalidError('a keyword recall needs at least one word (letters or digits)');
    const scored: Scored[] = [];
    index.keywordScores(words, (item, bm25) => scored.push({ item, score: bm25 * scoreBoost(index.weight(item.id), index.age(item)) }));
    return scored;
  }

  async #semantic(index: MemoryIndex, signal: AbortSignal | undefined): Promise<Scored[]> {
    const embedder = this.#source.embedder as Embedder;
    const [query] = (await embedTexts(embedder, [this.#query], signal)) as [Float32Array];
    const items = [...index.items()];
    const missing = items.filter((item) => index.vector(item, embedder.dimensions) === undefined);
    if (missing.length > 0) {
      const vectors = await embedTexts(embedder, missing.map(itemText), signal);
      missing.forEach((item, i) => index.remember(item, vectors[i] as Float32Array));
    }
    return items.map((item) => {
      const v = index.vector(item, embedder.dimensions);
      // similarity mapped to [0, 1] so that the boost factor keeps its meaning for opposite vectors
      const similarity = v === undefined ? 0 : (1 + cosine(query, v)) / 2;
      return { item, score: similarity * scoreBoost(index.weight(item.id), index.age(item)) };
    });
  }
}
