/**
 * Adapts a web-standard `(Request) => Promise<Response>` handler to node:http, checking what it
 * can before the handler runs and while the body arrives: a declared Content-Length over the
 * cap gets 413 at once; the body reaches the handler as a stream read only as the handler pulls
 * it, cut off with 413 at the cap and 408 past its time limit; a client with too many open
 * event streams gets 429 (before the handler works, when the request asks for a stream or the
 * handler reserves its slot through `reserveEventStream`). An answer sent before the body was
 * read in full closes the connection, so an unread body is never drained into memory.
 */

import { DEFAULT_MAX_BODY_BYTES } from '../http-common.js';
import { limitedBody, type BodyLimit, type LimitedBody } from './body-stream.js';
import { bodyWasRead, rebuildBody, type ParsedBody } from './framework-body.js';
import type { FetchHandler, NodeRequestLike, NodeResponseLike } from './node-types.js';
import { StreamSlots } from './stream-slots.js';
import { attachEventStreamGate } from '../stream-gate.js';

/** Default for {@link NodeListenerOptions.bodyTimeoutMs}. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** Default for {@link NodeListenerOptions.maxStreamsPerClient}. */
export const DEFAULT_MAX_STREAMS_PER_CLIENT = 16;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Origin used to build the request URL when the request has no Host header (default `http://localhost`). */
  readonly fallbackOrigin?: string | undefined;
  /** Largest request body passed to the handler, bytes (default 1 MiB); more gets 413. */
  readonly maxBodyBytes?: number | undefined;
  /** The whole body must arrive within this time after the request head, ms (default 10 000); else 408. */
  readonly bodyTimeoutMs?: number | undefined;
  /** Concurrent event-stream responses one client may hold open (default 16); more gets 429. */
  readonly maxStreamsPerClient?: number | undefined;
  /**
   * What identifies a client for `maxStreamsPerClient`. Default: the socket's remote address.
   * Behind a proxy, or to count per authenticated principal, return that instead (for example a
   * verified subject from your token middleware).
   */
  readonly clientKey?: ((request: NodeRequestLike) => string) | undefined;
  /**
   * A path prefix that something in front of this server removed (a proxy that forwards
   * `/agents/a2a/x` as `/x`): it is put back in front of the request path, so absolute URLs the
   * handler builds from the request (the A2A card's interface URL) carry it. Default: none.
   */
  readonly basePath?: string | undefined;
}

/**
 * What a web framework already knows about a request that the raw node:http request does not
 * tell: the path before its router removed the mount prefix, and the body its parser read.
 */
export interface FrameworkRequest {
  /**
   * The request target as the client sent it, mount prefix included (Express `req.originalUrl`,
   * Koa `ctx.originalUrl`). Default: the request's own `url`.
   */
  readonly originalUrl?: string | undefined;
  /**
   * The body a parser already read. Used only when the request's stream was read already; an
   * unread stream is always read by the adapter itself, under its own cap.
   */
  readonly body?: ParsedBody | undefined;
}

/**
 * Serves one request through the handler, with the limits of its {@link NodeListenerOptions};
 * resolves when the answer is written (or the client went away).
 */
export type NodeServe = (request: NodeRequestLike, response: NodeResponseLike, framework?: FrameworkRequest) => Promise<void>;

interface Limits {
  readonly basePath: string;
  readonly fallbackOrigin: string;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly clientKey: (request: NodeRequestLike) => string;
}

const encoder = new TextEncoder();
const ERROR_BODIES: Record<number, string> = {
  400: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}',
  408: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request timeout"}}',
  413: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body too large"}}',
  415: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}',
  429: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"too many open streams"}}',
  501: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}',
  500: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"internal error"}}',
};

/**
 * Methods node:http accepts but a fetch `Request` refuses to carry (it throws a TypeError), so no
 * handler can be given them: they get 501 before the handler runs.
 */
const UNREPRESENTABLE_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

function checkLimit(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer`);
  return v;
}

function isEncrypted(socket: object | null | undefined): boolean {
  return typeof socket === 'object' && socket !== null && (socket as { readonly encrypted?: unknown }).encrypted === true;
}

function remoteAddress(request: NodeRequestLike): string {
  const socket = request.socket as { readonly remoteAddress?: unknown } | null | undefined;
  return typeof socket?.remoteAddress === 'string' ? socket.remoteAddress : 'unknown';
}

function headerValue(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

function acceptsEventStream(request: NodeRequestLike): boolean {
  return (headerValue(request.headers['accept']) ?? '').toLowerCase().includes('text/event-stream');
}

/** The declared Content-Length: a number, undefined when absent, NaN when malformed. */
function declaredLength(request: NodeRequestLike): number | undefined {
  const text = headerValue(request.headers['content-length']);
  if (text === undefined) return undefined;
  return /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
}

/** The body the handler reads: a capped stream off the socket, or bytes a framework already read. */
type HandlerBody = { readonly stream: LimitedBody } | { readonly bytes: Uint8Array };

function toRequest(request: NodeRequestLike, target: string, body: HandlerBody | undefined, signal: AbortSignal, limits: Limits): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    const text = headerValue(value);
    if (text !== undefined && !name.startsWith(':')) headers.set(name, text);
  }
  const host = headerValue(request.headers['host']);
  const origin = host !== undefined ? `${isEncrypted(request.socket) ? 'https' : 'http'}://${host}` : limits.fallbackOrigin;
  let url: URL;
  try {
    url = new URL(limits.basePath === '' || !target.startsWith('/') ? target : `${limits.basePath}${target}`, origin);
  } catch {
    url = new URL('/', limits.fallbackOrigin);
  }
  const method = request.method ?? 'GET';
  if (body === undefined) return new Request(url, { method, headers, signal });
  if ('bytes' in body) {
    // The parser's bytes replace the wire body; its framing headers no longer describe them.
    headers.delete('transfer-encoding');
    headers.set('content-length', String(body.bytes.byteLength));
    return new Request(url, { method, headers, signal, body: body.bytes as Uint8Array<ArrayBuffer> });
  }
  // `duplex: 'half'` is how fetch-style runtimes accept a streamed request body.
  return new Request(url, { method, headers, signal, body: body.stream.stream, duplex: 'half' } as RequestInit);
}

/**
 * A fixed JSON-RPC error answer (400, 408, 413, 415, 429, 501, or 500 for any other status); `close`
 * asks Node to close the connection after it. Nothing is sent once the head went out.
 */
export function sendError(target: NodeResponseLike, status: number, close: boolean, extra: Record<string, string> = {}): void {
  if (target.writableEnded === true || target.headersSent === true) return;
  try {
    target.statusCode = status;
    target.setHeader('content-type', 'application/json');
    if (close) target.setHeader('connection', 'close');
    for (const [name, value] of Object.entries(extra)) target.setHeader(name, value);
    target.end(encoder.encode(ERROR_BODIES[status] ?? ERROR_BODIES[500]));
  } catch {
    // the socket is gone; nothing left to answer
  }
}

async function writeResponse(response: Response, target: NodeResponseLike, closed: AbortSignal, close: boolean): Promise<void> {
  target.statusCode = response.status;
  response.headers.forEach((value, name) => {
    target.setHeader(name, value);
  });
  if (close) target.setHeader('connection', 'close');
  if (response.body === null) {
    target.end();
    return;
  }
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    // One write for a whole body: a separate head packet costs a delayed-ACK round on loopback.
    target.end(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  target.flushHeaders?.();
  const reader = response.body.getReader();
  // A client that goes away cancels the body, so its producer (a reply wait) stops too.
  const stop = (): void => void reader.cancel().catch(() => undefined);
  closed.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      if (closed.aborted) break;
      const { done, value } = await reader.read();
      if (done || closed.aborted) break;
      if (!target.write(value) && target.once !== undefined && !closed.aborted) {
        await new Promise<void>((resolve) => {
          target.once?.('drain', resolve);
          closed.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    }
  } finally {
    closed.removeEventListener('abort', stop);
    await reader.cancel().catch(() => undefined);
    if (target.writableEnded !== true && !closed.aborted) target.end();
  }
}

const LIMIT_STATUS: Record<BodyLimit, number> = { 'too-large': 413, 'too-slow': 408 };

/**
 * The body the handler gets: none, the bytes a framework parser already read (the stream is
 * drained then and must not be read again), or the socket's stream under the cap; a number is
 * the status to answer instead.
 */
function handlerBody(request: NodeRequestLike, hasBody: boolean, framework: FrameworkRequest | undefined, limits: Limits): HandlerBody | number | undefined {
  if (!hasBody) return undefined;
  if (!bodyWasRead(request)) return { stream: limitedBody(request, limits.maxBodyBytes, limits.bodyTimeoutMs) };
  const rebuilt = rebuildBody(framework?.body, limits.maxBodyBytes);
  if ('bytes' in rebuilt) return rebuilt;
  return rebuilt.refused === 'too-large' ? 413 : 400;
}

async function serve(
  handler: FetchHandler,
  limits: Limits,
  slots: StreamSlots,
  request: NodeRequestLike,
  response: NodeResponseLike,
  controller: AbortController,
  framework: FrameworkRequest | undefined,
): Promise<void> {
  const method = (request.method ?? 'GET').toUpperCase();
  if (UNREPRESENTABLE_METHODS.has(method)) return sendError(response, 501, true);
  const declared = declaredLength(request);
  const hasBody = method !== 'GET' && method !== 'HEAD' && declared !== 0;
  if (hasBody && declared !== undefined) {
    if (Number.isNaN(declared)) return sendError(response, 400, true);
    if (declared > limits.maxBodyBytes) return sendError(response, 413, true);
  }
  const client = limits.clientKey(request);
  // A client at its limit that asks for a stream is refused before its body is read. Only a
  // check: a request that accepts a stream among other types (MCP clients send it with every
  // call) holds no slot until its handler reserves one or answers with a stream.
  if (acceptsEventStream(request) && slots.full(client)) return sendError(response, 429, hasBody, { 'retry-after': '1' });
  let release: (() => void) | undefined;
  const prepared = handlerBody(request, hasBody, framework, limits);
  if (typeof prepared === 'number') return sendError(response, prepared, false);
  const body = prepared !== undefined && 'stream' in prepared ? prepared.stream : undefined;
  // Once this request is answered its gate holds nothing more (a handler still running after a
  // body limit answered must not take a slot nobody gives back).
  let answered = false;
  try {
    const target = framework?.originalUrl ?? request.url ?? '/';
    const fetchRequest = toRequest(request, target, prepared, controller.signal, limits);
    // A handler reserves its slot through this gate (`reserveEventStream`) before it starts the
    // work of a streamed answer, so a refused stream has started nothing and concurrent requests
    // cannot all pass a check of the count.
    attachEventStreamGate(fetchRequest, () => {
      if (answered) return false;
      release ??= slots.acquire(client);
      return release !== undefined;
    });
    const handled = handler(fetchRequest);
    const outcome = await (body === undefined ? handled : Promise.race([handled, body.limited]));
    if (typeof outcome === 'string') {
      handled.then((late) => late.body?.cancel().catch(() => undefined), () => undefined);
      controller.abort();
      return sendError(response, LIMIT_STATUS[outcome], true);
    }
    const close = body !== undefined && !body.complete();
    if ((outcome.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // A handler that reserved nothing is held to the limit only now, after its work.
      release ??= slots.acquire(client);
      if (release === undefined) {
        await outcome.body?.cancel().catch(() => undefined);
        return sendError(response, 429, close, { 'retry-after': '1' });
      }
      await writeResponse(outcome, response, controller.signal, close);
      return;
    }
    // Not a stream after all: the reserved slot goes back before the answer is written.
    release?.();
    release = undefined;
    await writeResponse(outcome, response, controller.signal, close);
  } finally {
    answered = true;
    release?.();
    body?.dispose();
  }
}

/**
 * Adapts a web-standard `(Request) => Promise<Response>` handler to node:http's
 * `(req, res)` listener: `http.createServer(toNodeListener(handler))`. Streamed bodies (SSE) are
 * written as they arrive, and a closed connection aborts the request's signal. The body limits
 * and the per-client stream limit are described on {@link NodeListenerOptions}; pair it with
 * `applyServerLimits(server)` for the request-head time limit, which only the server can enforce.
 */
export function toNodeListener(handler: FetchHandler, options: NodeListenerOptions = {}): (request: NodeRequestLike, response: NodeResponseLike) => void {
  const serveOne = createNodeServe(handler, options);
  return (request, response) => {
    void serveOne(request, response);
  };
}

function checkBasePath(path: string | undefined): string {
  if (path === undefined || path === '' || path === '/') return '';
  if (!/^\/[^?#\s]*$/.test(path)) throw new RangeError('basePath must be a path starting with /');
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * The adapter behind {@link toNodeListener} and the framework helpers: serves one node:http
 * request through `handler`, taking what a framework already knows about it (the path before
 * its router removed the mount prefix, the body its parser read). It never rejects: a failure
 * is answered with a JSON-RPC error.
 */
export function createNodeServe(handler: FetchHandler, options: NodeListenerOptions = {}): NodeServe {
  const limits: Limits = {
    basePath: checkBasePath(options.basePath),
    fallbackOrigin: options.fallbackOrigin ?? 'http://localhost',
    maxBodyBytes: checkLimit(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes'),
    bodyTimeoutMs: checkLimit(options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS, 'bodyTimeoutMs'),
    clientKey: options.clientKey ?? remoteAddress,
  };
  const slots = new StreamSlots(checkLimit(options.maxStreamsPerClient, DEFAULT_MAX_STREAMS_PER_CLIENT, 'maxStreamsPerClient'));
  return async (request, response, framework) => {
    const controller = new AbortController();
    response.once?.('close', () => controller.abort());
    await serve(handler, limits, slots, request, response, controller, framework).catch(() => sendError(response, 500, true));
  };
}
