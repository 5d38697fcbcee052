/**
 * The body of a request that a framework's body parser (Express `express.json()`, Koa's
 * `@koa/bodyparser`) already read off the socket. The stream is drained then, so the bytes the
 * handler sees are rebuilt from what the parser kept: its raw text when it kept it, else its
 * parsed value serialized again. The size cap still applies to what is rebuilt.
 */

import type { NodeRequestLike } from './node-types.js';

/** What a framework's parser kept of a body it read: the raw text or bytes, or the parsed value. */
export type ParsedBody = { readonly raw: string | Uint8Array } | { readonly parsed: unknown };

/** The outcome of rebuilding a read body: its bytes, or why it cannot be served. */
export type RebuiltBody = { readonly bytes: Uint8Array } | { readonly refused: 'too-large' | 'unreadable' };

const encoder = new TextEncoder();

/**
 * True when something already read the request's body stream, so reading it again would wait
 * for bytes that never come. Node's IncomingMessage reports both flags; a request that does not
 * is taken as unread.
 */
export function bodyWasRead(request: NodeRequestLike): boolean {
  const stream = request as { readonly readableDidRead?: unknown; readonly readableEnded?: unknown };
  return stream.readableDidRead === true || stream.readableEnded === true;
}

function serialized(body: ParsedBody): Uint8Array | undefined {
  if ('raw' in body) return typeof body.raw === 'string' ? encoder.encode(body.raw) : body.raw;
  const value = body.parsed;
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return encoder.encode(value);
  try {
    const text = JSON.stringify(value);
    // undefined, a function or a symbol has no JSON form: the parser kept nothing usable.
    return typeof text === 'string' ? encoder.encode(text) : undefined;
  } catch {
    // a cycle or a BigInt: not a body any client sent as JSON
    return undefined;
  }
}

/**
 * The bytes of a body a framework already read, capped at `maxBytes`. A value too large to
 * pass on is refused before it is copied anywhere; a body that was read but kept in no usable
 * form is `unreadable`.
 */
export function rebuildBody(body: ParsedBody | undefined, maxBytes: number): RebuiltBody {
  if (body === undefined) return { refused: 'unreadable' };
  const bytes = serialized(body);
  if (bytes === undefined) return { refused: 'unreadable' };
  if (bytes.byteLength > maxBytes) return { refused: 'too-large' };
  return { bytes };
}
