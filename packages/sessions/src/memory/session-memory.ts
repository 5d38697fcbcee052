import { AgentTopic, type MessagePosition } from '@agdx/agents';
import { InvalidError, MintUlid, RecordId, stringHeader, type ConversationId } from '@agdx/wire';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { appendPlain } from '../turns/append-turn.js';
import { readConversation } from '../turns/read-turns.js';
import { toContextBlock } from './context-block.js';
import { decodeMemoryRecord, encodeMemoryRecord, MEMORY_KINDS, type MemoryKind } from './memory-record.js';

/** The header naming a memory record's namespace. */
export const MEMORY_NAMESPACE_HEADER = 'agdx.mem.ns';
/** How many items a recall returns by default. */
export const DEFAULT_RECALL_LIMIT = 50;
/** How many items `consolidate` looks at. */
export const CONSOLIDATE_SCAN_LIMIT = 10_000;

const decoder = new TextDecoder('utf-8', { fatal: false });
const encoder = new TextEncoder();

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
  /** Where the item was written. */
  readonly position: MessagePosition;
  /** The body as UTF-8 (invalid bytes replaced). */
  text(): string;
}

/** What {@link SessionMemory.consolidate} did. */
export interface ConsolidateReport {
  readonly scanned: number;
  readonly kept: number;
  readonly forgotten: number;
}

/** Options of {@link SessionMemory.remember}. */
export interface RememberOptions {
  /** Item kind (default `fact`). */
  readonly kind?: MemoryKind | undefined;
  /** A named key: the item becomes the slot `<namespace>/<key>`, replaced by later writes. */
  readonly key?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * A recall in the making. On a log without a managed key-value view (plain Iggy, the dev server,
 * MemoryLog) every recall folds the memory topic in process; `folded()` asks for that explicitly.
 */
export class RecallBuilder {
  readonly #memory: SessionMemory;
  #limit = DEFAULT_RECALL_LIMIT;
  #tokenBudget: number | undefined;

  /** @internal Built by {@link SessionMemory.recall}. */
  constructor(memory: SessionMemory) {
    this.#memory = memory;
  }

  /** At most `n` items (default 50). */
  limit(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidError('recall limit must be a non-negative integer');
    this.#limit = n;
    return this;
  }

  /** The newest items (the log memory's only strategy). */
  recent(): this {
    return this;
  }

  /** A keyword recall; log memory has no index, so it does not use the text and returns recent items. */
  keyword(text: string): this {
    if (typeof text !== 'string') throw new InvalidError('a keyword recall takes text');
    return this;
  }

  /** A semantic recall; log memory has no embedder and returns recent items. */
  semantic(text: string): this {
    return this.keyword(text);
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

  /** The recalled items: highest feedback weight first, then newest first. */
  async fetch(signal?: AbortSignal): Promise<MemoryItem[]> {
    return (await this.#memory.fold(signal)).slice(0, this.#limit);
  }

  /** The recalled items as one prompt-ready string. */
  async block(tokenBudget?: number, signal?: AbortSignal): Promise<string> {
    return toContextBlock(await this.fetch(signal), tokenBudget ?? this.#tokenBudget);
  }
}

/**
 * Memory for one conversation in one namespace, on `agent.memory` of the session's stream. The
 * conversation scopes every item, so two sessions in a namespace never see each other's items.
 */
export class SessionMemory {
  readonly #runtime: SessionsRuntime;
  readonly #conversation: ConversationId;
  readonly #namespace: string;

  /** @internal Built by `Session.memory`. */
  constructor(runtime: SessionsRuntime, conversation: ConversationId, namespace: string) {
    if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > 255) throw new InvalidError('memory namespace must be a non-empty string');
    this.#runtime = runtime;
    this.#conversation = conversation;
    this.#namespace = namespace;
  }

  /** The namespace. */
  get namespace(): string {
    return this.#namespace;
  }

  /** The conversation scoping the items. */
  get conversation(): ConversationId {
    return this.#conversation;
  }

  async #write(record: Parameters<typeof encodeMemoryRecord>[0], id: string, signal?: AbortSignal): Promise<MessagePosition> {
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

  /** Stores an item for this conversation; returns its id. */
  async remember(payload: Uint8Array | string, options: RememberOptions = {}): Promise<string> {
    const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
    if (!(body instanceof Uint8Array)) throw new InvalidError('memory payload must be bytes or a string');
    const kind = options.kind ?? 'fact';
    if (!MEMORY_KINDS.includes(kind)) throw new InvalidError(`unknown memory kind ${JSON.stringify(kind)}`);
    const id = options.key !== undefined ? `${this.#namespace}/${options.key}` : MintUlid.mint(RecordId).toString();
    await this.#write({ kind: 'item', id, itemKind: kind, body }, id, options.signal);
    return id;
  }

  /** Starts a recall of this conversation's items. */
  recall(): RecallBuilder {
    return new RecallBuilder(this);
  }

  /** A keyword recall (log memory ignores the text and returns recent items). */
  search(text: string, signal?: AbortSignal): Promise<MemoryItem[]> {
    return this.recall().keyword(text).fetch(signal);
  }

  /** Recalled items rendered as one prompt-ready string within about `tokenBudget` tokens. */
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

  /** Keeps the newest `maxItems` items and forgets the others. */
  async consolidate(maxItems: number, signal?: AbortSignal): Promise<ConsolidateReport> {
    if (!Number.isSafeInteger(maxItems) || maxItems < 0) throw new InvalidError('maxItems must be a non-negative integer');
    const items = (await this.fold(signal)).sort((a, b) => compareNewestFirst(a, b)).slice(0, CONSOLIDATE_SCAN_LIMIT);
    const drop = items.slice(maxItems);
    for (const item of drop) await this.forget(item.id, signal);
    return { scanned: items.length, kept: items.length - drop.length, forgotten: drop.length };
  }

  /** Another namespace for the same conversation. */
  memory(namespace: string): SessionMemory {
    return new SessionMemory(this.#runtime, this.#conversation, namespace);
  }

  /** @internal Replays the memory topic and applies forget, feedback and named slots. */
  async fold(signal?: AbortSignal): Promise<MemoryItem[]> {
    const messages = await readConversation(
      this.#runtime.client.transport,
      this.#runtime.stream(),
      [AgentTopic.Memory],
      this.#conversation,
      (_t, _p, tail) => ({ start: 0n, end: tail }),
      signal,
      this.#runtime.onError,
    );
    const items = new Map<string, { id: string; kind: MemoryKind; body: Uint8Array; position: MessagePosition; order: number }>();
    const forgotten = new Set<string>();
    const weights = new Map<string, number>();
    let order = 0;
    for (const message of messages) {
      const ns = message.headers.get(MEMORY_NAMESPACE_HEADER);
      if (ns === undefined || ns.kind !== 'string' || decoder.decode(ns.value) !== this.#namespace) continue;
      let record;
      try {
        record = decodeMemoryRecord(message.payload);
      } catch {
        continue;
      }
      if (record.kind === 'forget') {
        items.delete(record.target);
        forgotten.add(record.target);
      } else if (record.kind === 'feedback') {
        weights.set(record.target, (weights.get(record.target) ?? 0) + record.weight);
      } else {
        const named = record.id.startsWith(`${this.#namespace}/`);
        if (!named && (forgotten.has(record.id) || items.has(record.id))) continue;
        if (named) forgotten.delete(record.id);
        items.set(record.id, { id: record.id, kind: record.itemKind, body: record.body, position: message.id, order: order++ });
      }
    }
    return [...items.values()]
      .sort((a, b) => {
        const wa = weights.get(a.id) ?? 0;
        const wb = weights.get(b.id) ?? 0;
        return wb !== wa ? wb - wa : b.order - a.order;
      })
      .map(({ id, kind, body, position, order: o }) => {
        const item: MemoryItem = { id, kind, body, weight: weights.get(id) ?? 0, position, text: (): string => decoder.decode(body) };
        newestOrder.set(item, o);
        return item;
      });
  }
}

const newestOrder = new WeakMap<MemoryItem, number>();

function compareNewestFirst(a: MemoryItem, b: MemoryItem): number {
  return (newestOrder.get(b) ?? 0) - (newestOrder.get(a) ?? 0);
}
