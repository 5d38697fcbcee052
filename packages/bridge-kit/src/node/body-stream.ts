/**
 * A request body handed to a web-standard handler as a stream that is read from the socket only
 * as the handler pulls, with the size cap and the time limit enforced while it arrives. Nothing
 * is read before the handler asks (so a handler that answers 401 from the headers never costs a
 * body read), and never more than the cap is passed on.
 */

import type { NodeRequestLike } from './node-types.js';

/** Why the body was cut off. */
export type BodyLimit = 'too-large' | 'too-slow';

/** A body stream and the limit it ran into, if any. */
export interface LimitedBody {
  /** The body as the handler reads it. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Resolves with the limit the body ran into; never resolves when it arrived in time and in size. */
  readonly limited: Promise<BodyLimit>;
  /** True once the whole body was read. */
  readonly complete: () => boolean;
  /** Stops the clock (the answer went out, so a late or unread body no longer matters). */
  readonly dispose: () => void;
}

/** Thrown into the handler's body reader when a limit cuts the body off. */
export class BodyLimitError extends Error {
  /** Which limit. */
  readonly limit: BodyLimit;
  constructor(limit: BodyLimit) {
    super(limit === 'too-large' ? 'request body over the size limit' : 'request body not received in time');
    this.name = 'BodyLimitError';
    this.limit = limit;
  }
}

/**
 * Wraps `request` (already known to have a body) as a stream capped at `maxBytes` bytes that
 * must be complete within `timeoutMs` of this call.
 */
export function limitedBody(request: NodeRequestLike, maxBytes: number, timeoutMs: number): LimitedBody {
  // Created on the first pull: making a Node stream's iterator starts it reading.
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  const encoder = new TextEncoder();
  let total = 0;
  let done = false;
  let hit: ((limit: BodyLimit) => void) | undefined;
  const limited = new Promise<BodyLimit>((resolve) => {
    hit = resolve;
  });
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const trip = (limit: BodyLimit): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    hit?.(limit);
    try {
      controller?.error(new BodyLimitError(limit));
    } catch {
      // the handler already cancelled its reader
    }
  };
  const timer = setTimeout(() => trip('too-slow'), timeoutMs);
  let complete = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      async pull(c) {
        if (done) return;
        let next: IteratorResult<Uint8Array | string>;
        try {
          iterator ??= request[Symbol.asyncIterator]();
          next = await iterator.next();
        } catch (error) {
          done = true;
          clearTimeout(timer);
          c.error(error);
          return;
        }
        if (done) return;
        if (next.done === true) {
          done = true;
          complete = true;
          clearTimeout(timer);
          c.close();
          return;
        }
        const bytes = typeof next.value === 'string' ? encoder.encode(next.value) : next.value;
        total += bytes.byteLength;
        if (total > maxBytes) {
          trip('too-large');
          return;
        }
        c.enqueue(bytes);
      },
      cancel() {
        done = true;
        clearTimeout(timer);
      },
    },
    // One chunk at a time: the socket is read only as fast as the handler consumes.
    { highWaterMark: 0 },
  );
  return {
    stream,
    limited,
    complete: () => complete,
    dispose: () => {
      clearTimeout(timer);
    },
  };
}
