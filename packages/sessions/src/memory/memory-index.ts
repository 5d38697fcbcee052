import { AgentTopic, type MessagePosition } from '@agdx/agents';
import { reportSkippedRecord, type ConversationId } from '@agdx/wire';
import { PositionWindow } from '../position-window.js';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { readConversation } from '../turns/read-turns.js';
import type { ContextMessage } from '../turns/session-turn.js';
import { Bm25Index } from './bm25.js';
import { decodeMemoryRecord, type MemoryKind, type MemoryRecord } from './memory-record.js';
import { tokenize } from './tokenize.js';
import { unitVector, vectorFromBytes } from './vector.js';

/** The header naming a memory record's namespace. */
export const MEMORY_NAMESPACE_HEADER = 'agdx.mem.ns';
/** Folded memory indexes one sessions factory keeps in process (least recently used evicted first). */
export const MEMORY_INDEX_CACHE_SIZE = 256;
/**
 * Feedback weights one memory fold keeps for ids that are not live items (feedback on an id never
 * remembered, or on a named slot that was forgotten): the newest this many, so a writer appending
 * feedback on made-up ids cannot grow the fold with the log.
 */
export const MAX_PENDING_FEEDBACK = 1024;

// ignoreBOM: text that starts with U+FEFF is returned with it (the default decoder drops it).
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

/** One live item of the fold. */
export interface IndexedItem {
  readonly id: string;
  readonly kind: MemoryKind;
  readonly body: Uint8Array;
  readonly position: MessagePosition;
  /** Fold order: larger is newer. */
  readonly order: number;
  /** The vector written with the item, if any, scaled to length 1. */
  readonly storedVector: Float32Array | undefined;
}

/** The body as UTF-8 (invalid bytes replaced). */
export function itemText(item: IndexedItem): string {
  return decoder.decode(item.body);
}

/**
 * The folded memory of one conversation in one namespace, kept current incrementally: it stores
 * the next offset of every partition of `agent.memory` it has read, and each refresh reads only
 * the records appended since, so a recall costs what is new rather than the whole topic.
 */
export class MemoryIndex {
  readonly #runtime: SessionsRuntime;
  readonly #stream: string;
  readonly #conversation: ConversationId;
  readonly #namespaceBytes: Uint8Array;
  readonly #namedPrefix: string;
  #offsets = new Map<number, bigint>();
  #items = new Map<string, IndexedItem>();
  /**
   * The unnamed ids forgotten in the newest {@link REDELIVERY_WINDOW} records of their partition,
   * so a late copy of the item's record does not bring it back. An unnamed id is written once,
   * before its forget, so any copy of it within the window of its first write is also within this.
   */
  #forgotten = new PositionWindow();
  #weights = new Map<string, number>();
  /**
   * For each item id a live summary covers (its `covers`), that summary's id. A summary naming any
   * of them again is a duplicate of the first (two consolidations racing): the first on the log
   * is the one shown, the later one is not folded, so every reader shows one summary of an item.
   */
  #coveredBy = new Map<string, string>();
  /** The covered ids of each live summary that names them, released when it is forgotten. */
  #covers = new Map<string, readonly string[]>();
  /**
   * The ids in `#weights` that are not live items, oldest feedback first: at most
   * {@link MAX_PENDING_FEEDBACK}, the oldest dropped with its weight. A named slot written later
   * (or again) takes the weight it still has here.
   */
  #pending = new Set<string>();
  /** Live items whose summed weight is not zero: the few that a recent recall must sort. */
  #weighted = new Set<string>();
  /**
   * The write identities (idempotency keys) of the records folded in the newest
   * {@link REDELIVERY_WINDOW} records of their partition: a record redelivered (a producer's
   * retried append writes it twice) is folded once, so feedback adds its weight once and a late
   * copy of an older write to a named slot does not replace a newer one.
   */
  #writes = new PositionWindow();
  /** Every item in fold order, dead ones included until compaction, so the newest are found from the end. */
  #ordered: IndexedItem[] = [];
  #dead = 0;
  #nextOrder = 0;
  /** Built on the first keyword recall, then kept current by each fold step. */
  #bm25: Bm25Index<IndexedItem> | undefined;
  /** Vectors computed at recall time for items written without one (never written back). */
  #computed = new Map<string, Float32Array>();
  #queue: Promise<void> = Promise.resolve();
  /** The consolidations of this memory, one after another. */
  #consolidations: Promise<unknown> = Promise.resolve();
  /** The newest consolidation started here, running or waiting, until it settles. */
  #consolidation: { readonly maxItems: number; readonly summarize: unknown; readonly run: Promise<unknown> } | undefined;

  constructor(runtime: SessionsRuntime, stream: string, conversation: ConversationId, namespace: string) {
    this.#runtime = runtime;
    this.#stream = stream;
    this.#conversation = conversation;
    this.#namespaceBytes = encoder.encode(namespace);
    this.#namedPrefix = `${namespace}/`;
  }

  /** The live items, in fold order (oldest first). */
  items(): IterableIterator<IndexedItem> {
    return this.#items.values();
  }

  /** The live item of `id`. */
  get(id: string): IndexedItem | undefined {
    return this.#items.get(id);
  }

  /** The live summary that covers the item `id` (names it in its `covers`), if any. */
  coveringSummary(id: string): string | undefined {
    return this.#coveredBy.get(id);
  }

  /** How many live items there are. */
  get size(): number {
    return this.#items.size;
  }

  /** The summed feedback weight of an item. */
  weight(id: string): number {
    return this.#weights.get(id) ?? 0;
  }

  /** How many items were folded after this one (0 for the newest). */
  age(item: IndexedItem): number {
    return this.#nextOrder - 1 - item.order;
  }

  /**
   * The newest `limit` live items, newest first, optionally leaving out items with feedback.
   * Walks from the newest, so it costs about `limit` steps however many items there are.
   */
  newest(limit: number, withoutWeighted = false): IndexedItem[] {
    const out: IndexedItem[] = [];
    for (let i = this.#ordered.length - 1; i >= 0 && out.length < limit; i--) {
      const item = this.#ordered[i] as IndexedItem;
      if (this.#items.get(item.id) !== item) continue;
      if (withoutWeighted && this.#weighted.has(item.id)) continue;
      out.push(item);
    }
    return out;
  }

  /** The live items with non-zero feedback weight. */
  weighted(): IndexedItem[] {
    const out: IndexedItem[] = [];
    for (const id of this.#weighted) {
      const item = this.#items.get(id);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  /** Visits the BM25 score of each live item containing any of `words` (the word index is built on first use). */
  keywordScores(words: readonly string[], visit: (item: IndexedItem, bm25: number) => void): void {
    if (this.#bm25 === undefined) {
      this.#bm25 = new Bm25Index<IndexedItem>();
      for (const item of this.#items.values()) this.#bm25.add(item, tokenize(itemText(item)));
    }
    this.#bm25.score(words, visit);
  }

  /** The item's unit vector of `dimensions`: the stored one when it fits, else one computed earlier. */
  vector(item: IndexedItem, dimensions: number): Float32Array | undefined {
    if (item.storedVector?.length === dimensions) return item.storedVector;
    const computed = this.#computed.get(item.id);
    return computed?.length === dimensions ? computed : undefined;
  }

  /** Keeps a vector computed at recall time for a live item. */
  remember(item: IndexedItem, vector: Float32Array): void {
    if (this.#items.get(item.id) === item) this.#computed.set(item.id, unitVector(vector));
  }

  /**
   * Runs a consolidation after those started before it, or joins the newest one when it asks for
   * the same (`maxItems` and summarizer) and has not settled: two identical calls made together
   * are one consolidation, so they write one summary between them.
   */
  consolidation<T>(maxItems: number, summarize: unknown, work: () => Promise<T>): Promise<T> {
    const newest = this.#consolidation;
    if (newest !== undefined && newest.maxItems === maxItems && newest.summarize === summarize) return newest.run as Promise<T>;
    const run = this.#consolidations.then(work, work);
    const entry = { maxItems, summarize, run };
    this.#consolidation = entry;
    this.#consolidations = run.then(
      () => undefined,
      () => undefined,
    );
    const settle = (): void => {
      if (this.#consolidation === entry) this.#consolidation = undefined;
    };
    run.then(settle, settle);
    return run;
  }

  /** How many feedback weights the fold holds: those of live items and at most {@link MAX_PENDING_FEEDBACK} others. */
  get heldWeights(): number {
    return this.#weights.size;
  }

  /** How many identities the fold holds to recognise redelivered records (bounded by {@link REDELIVERY_WINDOW} per partition). */
  get heldIdentities(): { readonly writes: number; readonly forgotten: number } {
    return { writes: this.#writes.size, forgotten: this.#forgotten.size };
  }

  /** Reads what was appended since the last refresh and folds it; concurrent calls run one after another. */
  refresh(signal?: AbortSignal): Promise<void> {
    const run = this.#queue.then(() => this.#refresh(signal));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #refresh(signal: AbortSignal | undefined): Promise<void> {
    const tails = new Map<number, bigint>();
    let rewound = false;
    const messages = await readConversation(
      this.#runtime.client.transport,
      this.#stream,
      [AgentTopic.Memory],
      this.#conversation,
      (_topic, partition, tail) => {
        const start = this.#offsets.get(partition) ?? 0n;
        // a tail below what was read means the topic was recreated: the fold starts over
        if (tail < start) rewound = true;
        tails.set(partition, tail);
        return start >= tail ? undefined : { start, end: tail };
      },
      signal,
      this.#runtime.onError,
      this.#runtime.client.layout,
    );
    if (rewound) {
      this.#reset();
      return this.#refresh(signal);
    }
    // the read either completed or threw before anything here changed, so a failed refresh leaves the fold as it was
    for (const message of messages) this.#apply(message);
    for (const [partition, tail] of tails) this.#offsets.set(partition, tail);
  }

  #reset(): void {
    this.#offsets = new Map();
    this.#items = new Map();
    this.#forgotten = new PositionWindow();
    this.#weights = new Map();
    this.#coveredBy = new Map();
    this.#covers = new Map();
    this.#pending = new Set();
    this.#weighted = new Set();
    this.#writes = new PositionWindow();
    this.#ordered = [];
    this.#dead = 0;
    this.#computed = new Map();
    this.#bm25 = undefined;
    this.#nextOrder = 0;
  }

  #inNamespace(message: ContextMessage): boolean {
    const ns = message.headers.get(MEMORY_NAMESPACE_HEADER);
    if (ns === undefined || ns.kind !== 'string' || ns.value.length !== this.#namespaceBytes.length) return false;
    for (let i = 0; i < ns.value.length; i++) if (ns.value[i] !== this.#namespaceBytes[i]) return false;
    return true;
  }

  #apply(message: ContextMessage): void {
    if (!this.#inNamespace(message)) return;
    let record;
    try {
      record = decodeMemoryRecord(message.payload);
    } catch (error) {
      const { stream, topic, partition, offset } = message.id;
      reportSkippedRecord(this.#runtime.onError, { stream, topic, partition, offset }, error);
      return;
    }
    const partition = String(message.id.partition);
    const offset = message.id.offset;
    this.#forgotten.advance(partition, offset);
    const identity = writeIdentity(record, message.provenance.idempotencyKey, this.#namedPrefix);
    if (identity !== undefined && this.#writes.seen(partition, offset, identity)) return;
    if (record.kind === 'forget') {
      this.#drop(record.target);
      if (!record.target.startsWith(this.#namedPrefix)) {
        // an unnamed id is never written again, so its feedback can go with it
        this.#forgotten.note(partition, offset, record.target);
        this.#weights.delete(record.target);
        this.#pending.delete(record.target);
      } else if (this.#weights.has(record.target)) {
        // a named slot keeps its weight for a later write, among the bounded pending ones
        this.#holdPending(record.target);
      }
    } else if (record.kind === 'feedback') {
      const { target } = record;
      if (this.#forgotten.has(target) && !target.startsWith(this.#namedPrefix)) return;
      const weight = this.weight(target) + record.weight;
      const live = this.#items.has(target);
      if (weight === 0) {
        this.#weights.delete(target);
        this.#pending.delete(target);
      } else {
        this.#weights.set(target, weight);
        if (!live) this.#holdPending(target);
      }
      if (weight !== 0 && live) this.#weighted.add(target);
      else this.#weighted.delete(target);
    } else {
      const named = record.id.startsWith(this.#namedPrefix);
      if (!named && (this.#forgotten.has(record.id) || this.#items.has(record.id))) return;
      const covers = record.itemKind === 'summary' ? record.covers : undefined;
      // a second summary of an item a live summary covers: the first one on the log stays the only one
      if (covers !== undefined && covers.some((id) => (this.#coveredBy.get(id) ?? record.id) !== record.id)) return;
      if (named) this.#drop(record.id);
      const item: IndexedItem = {
        id: record.id,
        kind: record.itemKind,
        body: record.body,
        position: message.id,
        order: this.#nextOrder++,
        storedVector: unitOrUndefined(record.embedding === undefined ? undefined : vectorFromBytes(record.embedding)),
      };
      this.#items.set(item.id, item);
      if (covers !== undefined) {
        this.#covers.set(item.id, covers);
        for (const id of covers) this.#coveredBy.set(id, item.id);
      }
      this.#pending.delete(item.id);
      if (this.weight(item.id) !== 0) this.#weighted.add(item.id);
      this.#ordered.push(item);
      this.#bm25?.add(item, tokenize(itemText(item)));
    }
  }

  /** Marks the weight of `id`, not a live item, as the newest pending one, dropping the oldest beyond the bound. */
  #holdPending(id: string): void {
    this.#pending.delete(id);
    this.#pending.add(id);
    if (this.#pending.size <= MAX_PENDING_FEEDBACK) return;
    const oldest = this.#pending.values().next().value as string;
    this.#pending.delete(oldest);
    this.#weights.delete(oldest);
  }

  #drop(id: string): void {
    const item = this.#items.get(id);
    if (item === undefined) return;
    this.#items.delete(id);
    const covers = this.#covers.get(id);
    if (covers !== undefined) {
      this.#covers.delete(id);
      for (const covered of covers) if (this.#coveredBy.get(covered) === id) this.#coveredBy.delete(covered);
    }
    this.#weighted.delete(id);
    this.#bm25?.remove(item);
    // dead entries are skipped by `newest`; once they are the majority the list is rebuilt
    if (++this.#dead > 1024 && this.#dead > this.#ordered.length / 2) {
      this.#ordered = this.#ordered.filter((kept) => this.#items.get(kept.id) === kept);
      this.#dead = 0;
    }
    this.#computed.delete(id);
  }
}

/**
 * What tells a copy of a memory record from a new write: its idempotency key (each write's own
 * id). A named item whose key is its slot id was written before slot writes had keys of their
 * own (every write of the slot shared the key), so it has none and always applies.
 */
function writeIdentity(record: MemoryRecord, key: string | undefined, namedPrefix: string): string | undefined {
  if (key === undefined) return undefined;
  if (record.kind === 'item' && key === record.id && record.id.startsWith(namedPrefix)) return undefined;
  return key;
}

function unitOrUndefined(vector: Float32Array | undefined): Float32Array | undefined {
  return vector === undefined ? undefined : unitVector(vector);
}

const caches = new WeakMap<SessionsRuntime, Map<string, MemoryIndex>>();

/**
 * The folded index of `conversation` in `namespace` for this sessions factory, shared by every
 * memory handle on it so that each recall continues where the last one stopped.
 */
export function memoryIndexFor(runtime: SessionsRuntime, conversation: ConversationId, namespace: string): MemoryIndex {
  const stream = runtime.stream();
  let cache = caches.get(runtime);
  if (cache === undefined) caches.set(runtime, (cache = new Map()));
  const key = `${stream}\u0000${conversation.toString()}\u0000${namespace}`;
  let index = cache.get(key);
  if (index !== undefined) {
    // re-inserting marks it most recently used (a Map iterates in insertion order)
    cache.delete(key);
  } else {
    index = new MemoryIndex(runtime, stream, conversation, namespace);
    if (cache.size >= MEMORY_INDEX_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, index);
  return index;
}
