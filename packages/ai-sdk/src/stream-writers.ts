import { MAX_CHUNK_BODY_BYTES, type AgdxChunkWriter } from '@agdx/agents';
import { InvalidError, type AgentErrorBody, type TokenUsage } from '@agdx/wire';
import type { ResolvedDestination } from './destination.js';
import { utf8Pieces } from './utf8-pieces.js';

/** The kinds of streamed model output, by the AI SDK's names. */
export type OutputKind = 'text' | 'reasoning' | 'tool';

const PURPOSE = { text: 'chat', reasoning: 'reasoning', tool: 'tool_args' } as const;

interface Open {
  readonly kind: OutputKind;
  readonly writer: AgdxChunkWriter;
}

/**
 * The chunk writers of one model call, one per AI SDK output id: text → `chat`, reasoning →
 * `reasoning`, tool input → `tool_args` (named after its tool). Every write is awaited, which is
 * the back-pressure: the model stream is not read further until the log took the chunk.
 */
export class StreamWriters {
  readonly #to: ResolvedDestination;
  readonly #buffer: { readonly maxChunks: number; readonly lingerMs: number } | undefined;
  // Insertion order is the order streams opened in, so endings are written in that order too.
  readonly #open = new Map<string, Open>();

  constructor(to: ResolvedDestination, buffer: { readonly maxChunks: number; readonly lingerMs: number } | undefined) {
    if (buffer !== undefined) {
      const { maxChunks, lingerMs } = buffer;
      if (!Number.isSafeInteger(maxChunks) || maxChunks < 0 || typeof lingerMs !== 'number' || !Number.isFinite(lingerMs) || lingerMs < 0) {
        throw new InvalidError('buffer needs a non-negative integer maxChunks and a non-negative lingerMs', { context: { field: 'buffer' } });
      }
    }
    this.#to = to;
    this.#buffer = buffer;
  }

  /** Opens the stream of an id (a repeated start of an open id keeps the open stream). */
  open(kind: OutputKind, id: string, toolName?: string): AgdxChunkWriter {
    const key = `${kind}:${id}`;
    const existing = this.#open.get(key);
    if (existing !== undefined) return existing.writer;
    const writer = this.#to.open(PURPOSE[kind]);
    if (kind === 'tool' && toolName !== undefined && toolName.length > 0) writer.withTool(toolName);
    if (this.#buffer !== undefined) writer.buffered(this.#buffer.maxChunks, this.#buffer.lingerMs);
    this.#open.set(key, { kind, writer });
    return writer;
  }

  /** Writes a delta (opening the stream if its start part was missing), in pieces of at most 64 KiB. */
  async write(kind: OutputKind, id: string, text: string): Promise<void> {
    const writer = this.open(kind, id);
    for (const piece of utf8Pieces(text, MAX_CHUNK_BODY_BYTES)) await writer.write(piece);
  }

  /** Ends one stream with a finish reason. */
  async finish(kind: OutputKind, id: string, reason: string, usage?: TokenUsage): Promise<void> {
    const key = `${kind}:${id}`;
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    await open.writer.finish(reason, usage);
  }

  /**
   * Ends every stream still open at the end of a step with the step's finish reason; the step's
   * usage rides the terminal chunk of its last text stream (seed 000: usage once, on the terminal).
   */
  async finishStep(reason: string, usage: TokenUsage | undefined): Promise<void> {
    const entries = [...this.#open.entries()];
    const lastText = entries.findLast(([, open]) => open.kind === 'text')?.[0];
    for (const [key, open] of entries) {
      this.#open.delete(key);
      await open.writer.finish(reason, key === lastText ? usage : undefined);
    }
  }

  /**
   * Ends every open stream with an error record naming its channel.
   * @returns how many streams were open.
   */
  async failAll(body: AgentErrorBody): Promise<number> {
    const entries = [...this.#open.values()];
    this.#open.clear();
    let firstError: unknown;
    for (const open of entries) {
      try {
        await open.writer.fail(body);
      } catch (error) {
        // Keep closing the others: one refused error record must not leave the rest half-open.
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
    return entries.length;
  }
}
