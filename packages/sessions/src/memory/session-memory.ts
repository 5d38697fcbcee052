import { AgentTopic, type MessagePosition } from '@agdx/agents';
import { InvalidError, MintUlid, RecordId, stringHeader, utf8Length, type ConversationId } from '@agdx/wire';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { appendPlain } from '../turns/append-turn.js';
import { SummarizerError } from './memory-errors.js';
import { MEMORY_NAMESPACE_HEADER, memoryIndexFor, type MemoryIndex } from './memory-index.js';
import { encodeMemoryRecord, MEMORY_KINDS, type MemoryKind, type MemoryRecord } from './memory-record.js';
import { RecallBuilder, type MemoryItem, type RecallSource } from './recall-builder.js';
import { checkEmbedder, embedTexts, vectorToBytes, type Embedder } from './vector.js';

/** How many items `consolidate` looks at. */
export const CONSOLIDATE_SCAN_LIMIT = 10_000;

// ignoreBOM: text that starts with U+FEFF is returned with it (the default decoder drops it).
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

/** What {@link SessionMemory.consolidate} did. */
export interface ConsolidateReport {
  /** Items looked at (at most {@link CONSOLIDATE_SCAN_LIMIT}, the newest). */
  readonly scanned: number;
  /** Items kept (the newest `maxItems`), not counting the summary. */
  readonly kept: number;
  /** Items forgotten. */
  readonly forgotten: number;
  /** The id of the summary item written before the prune, when a summarizer ran and there was something new to summarise. */
  readonly summary?: string | undefined;
  /**
   * True when another consolidation (another process or sessions factory) pruned some of the same
   * items first: while the summarizer ran it forgot some of them or summarised them, or its
   * summary of some of them came first on the log. This one then forgets nothing (`forgotten` is
   * 0), and its summary, if it wrote one, is ignored by every reader, so each pruned item is
   * summarised once.
   */
  readonly superseded?: true | undefined;
}

/**
 * Turns the items a consolidation prunes (oldest first) into the text or bytes of one summary
 * item. It may be asynchronous; the SDK never calls a model itself.
 */
export type Summarizer = (items: readonly MemoryItem[], signal?: AbortSignal) => Promise<string | Uint8Array> | string | Uint8Array;

/** Options of {@link SessionMemory.consolidate}. */
export interface ConsolidateOptions {
  /** Writes one `summary` item for the pruned items before they are forgotten. */
  readonly summarize?: Summarizer | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link SessionMemory.remember}. */
export interface RememberOptions {
  /** Item kind (default `fact`). */
  readonly kind?: MemoryKind | undefined;
  /** A named key: the item becomes the slot `<namespace>/<key>`, replaced by later writes. */
  readonly key?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link SessionMemory.withEmbedder}. */
export interface VectorMemoryOptions {
  /**
   * Write each item's vector beside it in its record (default true). Without it, vectors are
   * computed at recall time for every item and kept in process only.
   */
  readonly storeVectors?: boolean | undefined;
}

/** The id of the summary of `pruned`: SHA-256 of the namespace and the pruned ids, as a 128-bit Crockford id. */
async function summaryId(namespace: string, pruned: readonly MemoryItem[]): Promise<string> {
  const text = ['agdx.memory.summary', namespace, ...pruned.map((item) => item.id).sort()].join('\n');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return RecordId.fromBytes(digest.subarray(0, 16)).toString();
}

/** A memory handle with an embedder: semantic and hybrid recall work on it. */
export type VectorMemory = SessionMemory & { readonly embedder: Embedder };

interface VectorConfig {
  readonly embedder: Embedder;
  readonly storeVectors: boolean;
}

/**
 * Memory for one conversation in one namespace, on `agent.memory` of the session's stream. The
 * conversation scopes every item, so two sessions in a namespace never see each other's items.
 */
export class SessionMemory implements RecallSource {
  readonly #runtime: SessionsRuntime;
  readonly #conversation: ConversationId;
  readonly #namespace: string;
  readonly #vectors: VectorConfig | undefined;

  /** @internal Built by `Session.memory`. */
  constructor(runtime: SessionsRuntime, conversation: ConversationId, namespace: string, vectors?: VectorConfig) {
    // the namespace travels in a string header, which holds 1 to 255 UTF-8 bytes
    if (typeof namespace !== 'string' || namespace.length === 0 || utf8Length(namespace) > 255) {
      throw new InvalidError('memory namespace must be a non-empty string of at most 255 UTF-8 bytes');
    }
    this.#runtime = runtime;
    this.#conversation = conversation;
    this.#namespace = namespace;
    this.#vectors = vectors;
  }

  /** The namespace. */
  get namespace(): string {
    return this.#namespace;
  }

  /** The conversation scoping the items. */
  get conversation(): ConversationId {
    return this.#conversation;
  }

  /** The embedder of a vector memory handle; undefined on plain memory. */
  get embedder(): Embedder | undefined {
    return this.#vectors?.embedder;
  }

  /**
   * The same memory with an embedder: a vector memory handle. `remember` embeds each item and
   * (by default) writes the vector in its record; semantic and hybrid recall rank by cosine
   * similarity to the query's vector.
   * @throws InvalidError when `embedder` is not an {@link Embedder}.
   */
  withEmbedder(embedder: Embedder, options: VectorMemoryOptions = {}): VectorMemory {
    checkEmbedder(embedder);
    return new SessionMemory(this.#runtime, this.#conversation, this.#namespace, {
      embedder,
      storeVectors: options.storeVectors ?? true,
    }) as VectorMemory;
  }

  /** Appends `record`; `id` is its write identity (idempotency key), by which a fold tells a redelivered copy from a new write. */
  async #write(record: MemoryRecord, id: string, signal?: AbortSignal): Promise<MessagePosition> {
    return appendPlain({
      transport: this.#runtime.client.transport,
      governor: this.#runtime.governor,
      stream: this.#runtime.stream(),
      topic: AgentTopic.Memory,
      conversation: this.#conversation,
      payload: encodeMemoryRecord(record),
      extraHeaders: new Map([[MEMORY_NAMESPACE_HEADER, stringHeader(this.#namespace)]]),
      idempotencyKey: id,
      signal,
    });
  }

  /**
   * Stores an item for this conversation; returns its id. On a vector memory handle the item is
   * embedded first, so an embedder failure writes nothing.
   * @throws EmbedderError when the embedder fails.
   */
  async remember(payload: Uint8Array | string, options: RememberOptions = {}): Promise<string> {
    const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
    if (!(body instanceof Uint8Array)) throw new InvalidError('memory payload must be bytes or a string');
    const kind = options.kind ?? 'fact';
    if (!MEMORY_KINDS.includes(kind)) throw new InvalidError(`unknown memory kind ${JSON.stringify(kind)}`);
    if (options.key !== undefined && (typeof options.key !== 'string' || options.key.length === 0)) throw new InvalidError('a memory key must be a non-empty string');
    const id = options.key !== undefined ? `${this.#namespace}/${options.key}` : MintUlid.mint(RecordId).toString();
    return this.#remember(id, body, kind, options.signal);
  }

  async #remember(id: string, body: Uint8Array, kind: MemoryKind, signal?: AbortSignal, covers?: readonly string[]): Promise<string> {
    let embedding: Uint8Array | undefined;
    if (this.#vectors?.storeVectors === true) {
      const [vector] = (await embedTexts(this.#vectors.embedder, [decoder.decode(body)], signal)) as [Float32Array];
      embedding = vectorToBytes(vector);
    }
    // each write to a named slot has an identity of its own, so a late copy of an older write is
    // recognised and cannot replace a newer one; an unnamed item's id is already its own
    const write = id.startsWith(`${this.#namespace}/`) ? MintUlid.mint(RecordId).toString() : id;
    await this.#write({ kind: 'item', id, itemKind: kind, body, embedding, covers }, write, signal);
    return id;
  }

  /** Starts a recall of this conversation's items (strategy `recent` until another is chosen). */
  recall(): RecallBuilder {
    return new RecallBuilder(this);
  }

  /** A keyword recall: the items containing the words of `text`, best match first (see {@link RecallBuilder.keyword}). */
  async search(text: string, signal?: AbortSignal): Promise<MemoryItem[]> {
    return this.recall().keyword(text).fetch(signal);
  }

  /** Recent items rendered as one prompt-ready string within about `tokenBudget` tokens. */
  block(tokenBudget?: number, signal?: AbortSignal): Promise<string> {
    return this.recall().block(tokenBudget, signal);
  }

  /** Forgets an item (appends a tombstone). */
  async forget(id: string, signal?: AbortSignal): Promise<void> {
    if (typeof id !== 'string' || id.length === 0) throw new InvalidError('forget needs a memory id');
    await this.#write({ kind: 'forget', target: id }, MintUlid.mint(RecordId).toString(), signal);
  }

  /** Adds feedback weight to an item; returns the feedback record's id. */
  async improve(id: string, weight = 1, signal?: AbortSignal): Promise<string> {
    if (typeof id !== 'string' || id.length === 0) throw new InvalidError('improve needs a memory id');
    if (typeof weight !== 'number' || !Number.isFinite(weight)) throw new InvalidError('feedback weight must be a finite number');
    const feedbackId = MintUlid.mint(RecordId).toString();
    await this.#write({ kind: 'feedback', target: id, weight }, feedbackId, signal);
    return feedbackId;
  }

  /**
   * Keeps the newest `maxItems` items and forgets the others. With `summarize`, the pruned items
   * (oldest first) become one `summary` item, written before any of them is forgotten: a process
   * that dies between the two leaves both the summary and the items, never neither (a later
   * consolidation forgets such items without summarising them again). The summary names the items
   * it covers; readers show only the first summary on the log that covers an item, so two
   * consolidations racing show one summary of each pruned item, and the one whose summary is not
   * shown forgets nothing (`superseded`).
   * @throws SummarizerError when the summarizer throws or returns neither text nor bytes (nothing is pruned).
   */
  async consolidate(maxItems: number, options: ConsolidateOptions | AbortSignal = {}): Promise<ConsolidateReport> {
    if (!Number.isSafeInteger(maxItems) || maxItems < 0) throw new InvalidError('maxItems must be a non-negative integer');
    const { summarize, signal } = options instanceof AbortSignal ? { summarize: undefined, signal: options } : options;
    if (summarize !== undefined && typeof summarize !== 'function') throw new InvalidError('summarize must be a function');
    const index = memoryIndexFor(this.#runtime, this.#conversation, this.#namespace);
    return index.consolidation(maxItems, summarize, () => this.#consolidate(maxItems, summarize, signal));
  }

  async #consolidate(maxItems: number, summarize: Summarizer | undefined, signal: AbortSignal | undefined): Promise<ConsolidateReport> {
    const items = await this.recall().limit(CONSOLIDATE_SCAN_LIMIT).newestFirst(signal);
    const drop = items.slice(maxItems);
    let summary: string | undefined;
    if (summarize !== undefined && drop.length > 0) {
      // items a live summary already covers (its writer stopped before forgetting them) are
      // forgotten without being summarised again
      const before = await this.index(signal);
      // the index is shared and kept current, so what covered each item now is copied out
      const coveredBefore = new Map(drop.map((item) => [item.id, before.coveringSummary(item.id)]));
      const fresh = drop.filter((item) => coveredBefore.get(item.id) === undefined);
      if (fresh.length > 0) {
        const superseded = { scanned: items.length, kept: items.length - drop.length, forgotten: 0, superseded: true } as const;
        let text: unknown;
        try {
          text = await summarize([...fresh].reverse(), signal);
        } catch (error) {
          signal?.throwIfAborted();
          throw new SummarizerError(error instanceof Error ? error.message : String(error), { cause: error });
        }
        if (typeof text !== 'string' && !(text instanceof Uint8Array)) throw new SummarizerError('it must return text or bytes');
        // Another writer may have consolidated these items while the summarizer ran: then their
        // summary is written and this one is not, so nothing is summarised twice.
        const index = await this.index(signal);
        if (drop.some((item) => index.get(item.id) === undefined || index.coveringSummary(item.id) !== coveredBefore.get(item.id))) return superseded;
        // The id follows from the pruned ids: two writers that passed the check together write the
        // same summary id, which the fold keeps once.
        const body = typeof text === 'string' ? encoder.encode(text) : text;
        const id = await summaryId(this.#namespace, fresh);
        await this.#remember(id, body, 'summary', signal, [...fresh].reverse().map((item) => item.id));
        // Two writers that passed the check together with different items both wrote a summary;
        // readers show the first on the log and ignore the other (it covers an item the first
        // does). The writer whose summary readers ignore forgets nothing, so no item is left
        // forgotten without a summary that shows.
        if ((await this.index(signal)).get(id) === undefined) return superseded;
        summary = id;
      }
    }
    for (const item of drop) await this.forget(item.id, signal);
    return { scanned: items.length, kept: items.length - drop.length, forgotten: drop.length, ...(summary !== undefined ? { summary } : {}) };
  }

  /** Another namespace for the same conversation (with the same embedder, if any). */
  memory(namespace: string): SessionMemory {
    return new SessionMemory(this.#runtime, this.#conversation, namespace, this.#vectors);
  }

  /** @internal The folded index of this conversation and namespace, brought up to date. */
  async index(signal?: AbortSignal): Promise<MemoryIndex> {
    const index = memoryIndexFor(this.#runtime, this.#conversation, this.#namespace);
    await index.refresh(signal);
    return index;
  }
}
