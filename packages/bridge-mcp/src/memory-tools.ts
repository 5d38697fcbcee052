import { AgdxError } from '@agdx/wire';
import type { McpToolResult } from './tool-result.js';

/** How many items the `recall` tool returns when the call names no limit. */
export const MEMORY_RECALL_DEFAULT_LIMIT = 10;
/** The most items one `recall` tool call returns. */
export const MEMORY_RECALL_MAX_LIMIT = 100;
/** The longest text the `remember` tool stores, in UTF-16 code units. */
export const MEMORY_REMEMBER_MAX_TEXT = 65_536;

/** One recalled item, as `@agdx/sessions` returns it. */
export interface RecalledMemoryItem {
  readonly id: string;
  readonly score: number;
  text(): string;
}

/** A recall in the making, as `@agdx/sessions`' `RecallBuilder` offers it. */
export interface MemoryRecallLike {
  keyword(text: string): MemoryRecallLike;
  hybrid(text: string): MemoryRecallLike;
  limit(n: number): MemoryRecallLike;
  fetch(signal?: AbortSignal): Promise<readonly RecalledMemoryItem[]>;
}

/**
 * Where the memory tools remember and recall: a `@agdx/sessions` memory handle
 * (`session.memory()`, or `.withEmbedder(embedder)` for hybrid recall). Declared structurally so
 * the bridge needs no dependency on the sessions package.
 */
export interface MemoryToolStore {
  remember(text: string, options?: { readonly signal?: AbortSignal | undefined }): Promise<string>;
  recall(): MemoryRecallLike;
  /** Set on a vector memory handle: the recall tool then fuses keyword and semantic ranking. */
  readonly embedder?: unknown;
}

function toolError(text: string): McpToolResult {
  return { content: [{ kind: 'text', text }], isError: true };
}

function toolJson(value: Record<string, unknown>): McpToolResult {
  return { content: [{ kind: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function field(args: unknown, name: string): unknown {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>)[name] : undefined;
}

/**
 * Runs the `remember` or `recall` tool against `store`. `remember {text}` answers `{id}`;
 * `recall {query, limit?}` answers `{items: [{id, text, score}]}`, best first, by keyword recall
 * (hybrid on a vector memory handle). Bad arguments and a failing embedder are tool errors
 * (`isError`) with a fixed message; a transport failure is thrown.
 */
export async function runMemoryTool(store: MemoryToolStore, name: 'remember' | 'recall', args: unknown, signal?: AbortSignal): Promise<McpToolResult> {
  if (name === 'remember') {
    const text = field(args, 'text');
    if (typeof text !== 'string' || text.length === 0) return toolError('remember needs a non-empty text');
    if (text.length > MEMORY_REMEMBER_MAX_TEXT) return toolError(`remember takes at most ${MEMORY_REMEMBER_MAX_TEXT} characters`);
    return toolJson({ id: await store.remember(text, { signal }) });
  }
  const query = field(args, 'query');
  const limit = field(args, 'limit') ?? MEMORY_RECALL_DEFAULT_LIMIT;
  if (typeof query !== 'string' || query.trim().length === 0) return toolError('recall needs a non-empty query');
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) return toolError('recall limit must be a positive integer');
  try {
    const recall = store.recall().limit(Math.min(limit, MEMORY_RECALL_MAX_LIMIT));
    const items = await (store.embedder !== undefined ? recall.hybrid(query) : recall.keyword(query)).fetch(signal);
    return toolJson({ items: items.map((item) => ({ id: item.id, text: item.text(), score: item.score })) });
  } catch (error) {
    // the user's query or embedder is at fault: the client hears a fixed message, never the details
    if (AgdxError.is(error, 'invalid')) return toolError('recall query has no words to search for');
    if (AgdxError.is(error, 'handler')) return toolError('recall failed: the embedder failed');
    throw error;
  }
}
