import { InvalidError, utf8Length } from '@agdx/wire';

/** One part of the AI SDK's full stream, read structurally (`TextStreamPart` of `streamText`). */
export interface ModelStreamPart {
  /** The part type (`text-delta`, `tool-call`, `finish`, …). */
  readonly type: string;
}

/** What a model call is read from: the result of `streamText` (its `fullStream`) or the part stream itself. */
export type ModelStreamSource = { readonly fullStream: AsyncIterable<ModelStreamPart> } | AsyncIterable<ModelStreamPart>;

/** The part stream of a source: `fullStream` of a `streamText` result, or the iterable itself. */
export function partsOf(source: ModelStreamSource): AsyncIterable<ModelStreamPart> {
  const stream = (source as { fullStream?: unknown }).fullStream;
  const iterable = stream ?? source;
  if (typeof iterable !== 'object' || iterable === null || typeof (iterable as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] !== 'function') {
    throw new InvalidError('a model stream is the result of streamText or an async iterable of its parts', { context: { field: 'source' } });
  }
  return iterable as AsyncIterable<ModelStreamPart>;
}

// Parts from a hand-made stream are untrusted: a field of the wrong type reads as missing.
/** A part's text field, or `undefined` when it is missing or not text. */
export function str(part: ModelStreamPart, field: string): string | undefined {
  const value = (part as unknown as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A part's text field that AGDX can carry in a field capped at `maxBytes` UTF-8 bytes (a tool
 * name, a metadata value), or `undefined` when it is missing, not text or longer: a hostile
 * provider's 5,000-byte call id must read as missing, not fail the record it would go on.
 */
export function cappedStr(part: ModelStreamPart, field: string, maxBytes: number): string | undefined {
  const value = str(part, field);
  return value === undefined || utf8Length(value) <= maxBytes ? value : undefined;
}

/** A part's field, unchecked. */
export function field(part: ModelStreamPart, name: string): unknown {
  return (part as unknown as Record<string, unknown>)[name];
}

/** What {@link nextOrAbort} rejects with when the caller's signal fired. */
export const ABORTED: unique symbol = Symbol('aborted');

/** The next part, or a rejection with {@link ABORTED} as soon as `signal` fires: an abort does not wait for a stalled model. */
export function nextOrAbort(iterator: AsyncIterator<ModelStreamPart>, signal: AbortSignal | undefined): Promise<IteratorResult<ModelStreamPart>> {
  if (signal === undefined) return iterator.next();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * An iterator over the parts. A web `ReadableStream` (the AI SDK's `fullStream`) is read through
 * its own reader: its async iterator's `return` waits behind a pending read, so a stalled model
 * would keep the stream locked and never cancelled, where the reader's `cancel` ends the pending
 * read at once, cancels the stream and lets the lock go.
 */
export function iteratorOf(parts: AsyncIterable<ModelStreamPart>): AsyncIterator<ModelStreamPart> {
  const getReader = (parts as { getReader?: unknown }).getReader;
  if (typeof getReader !== 'function') return parts[Symbol.asyncIterator]();
  const reader = (parts as unknown as ReadableStream<ModelStreamPart>).getReader();
  // The lock goes with the end of the stream, as a for-await over the stream would let it go.
  const release = (): void => reader.releaseLock();
  return {
    next: () =>
      reader.read().then(
        (result) => {
          if (result.done) release();
          return result as IteratorResult<ModelStreamPart>;
        },
        (error: unknown) => {
          release();
          throw error;
        },
      ),
    return: async () => {
      try {
        await reader.cancel();
      } finally {
        release();
      }
      return { done: true, value: undefined };
    },
  };
}

/** Asks a model stream to stop (its `return`), without waiting on a stalled model. */
export async function cancel(iterator: AsyncIterator<ModelStreamPart>): Promise<void> {
  try {
    // Not awaited to completion when the model is stalled: a pending next() may hold the stream.
    await Promise.race([iterator.return?.(), new Promise((resolve) => setTimeout(resolve, 0))]);
  } catch {
    // The model stream is being abandoned; its own failure to stop changes nothing recorded.
  }
}
