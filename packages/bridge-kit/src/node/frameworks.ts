/**
 * Mounting a bridge handler in the Node web frameworks people already run: Express (and
 * Connect), Fastify and Koa. Each helper hands the framework's node:http request and response
 * to the same adapter as `toNodeListener`, so every limit, the streamed SSE answer and the
 * disconnect signal behave the same, and adds what only the framework knows: the path before
 * its router removed the mount prefix (so the A2A card's URL carries the prefix) and the body
 * its parser already read. The framework types are structural: no framework is a dependency.
 */

import { createNodeServe, sendError, type NodeListenerOptions } from './node-adapter.js';
import type { FetchHandler, NodeRequestLike, NodeResponseLike } from './node-types.js';

/** The slice of an Express or Connect request the middleware reads. */
export interface ExpressRequestLike extends NodeRequestLike {
  /** The request target before the router removed the mount path. */
  readonly originalUrl?: string | undefined;
  /** What a body parser (`express.json()`) made of the body; undefined when none ran. */
  readonly body?: unknown;
}

/** An Express middleware that answers every request it gets (it never calls `next`). */
export type ExpressMiddleware = (request: ExpressRequestLike, response: NodeResponseLike, next: (error?: unknown) => void) => void;

/** An Express error middleware (four parameters, which is how Express tells one apart). */
export type ExpressErrorMiddleware = (error: unknown, request: ExpressRequestLike, response: NodeResponseLike, next: (error?: unknown) => void) => void;

/** The HTTP status a framework error asks for (body parsers set `status` or `statusCode`), else 500. */
function errorStatus(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 500;
  const { status, statusCode } = error as { readonly status?: unknown; readonly statusCode?: unknown };
  const code = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : 500;
  if (code === 413 || code === 415 || code === 408) return code;
  return code >= 400 && code < 500 ? 400 : 500;
}

/**
 * The middleware pair that mounts `handler` in Express 5 (or Connect):
 * `app.use('/agents/a2a', ...toExpressMiddleware(handler))`. The first answers every request
 * under the mount; the card and other absolute URLs carry the mount path (`req.originalUrl`).
 * A body `express.json()` already parsed is used as parsed (re-serialized, and still held to
 * `maxBodyBytes`); an unread body is read by the adapter. The second turns an error raised before
 * the bridge ran (a parser's 413 or 400) into the bridge's JSON-RPC error instead of Express's HTML
 * error page.
 */
export function toExpressMiddleware(handler: FetchHandler, options: NodeListenerOptions = {}): readonly [ExpressMiddleware, ExpressErrorMiddleware] {
  const serve = createNodeServe(handler, options);
  const middleware: ExpressMiddleware = (request, response) => {
    void serve(request, response, { originalUrl: request.originalUrl, body: request.body === undefined ? undefined : { parsed: request.body } });
  };
  const errors: ExpressErrorMiddleware = (error, _request, response, next) => {
    if (response.headersSent === true) {
      next(error);
      return;
    }
    sendError(response, errorStatus(error), true);
  };
  return [middleware, errors];
}

/** The slice of a Fastify request the route reads. */
export interface FastifyRequestLike {
  /** The node:http request. */
  readonly raw: NodeRequestLike;
}

/** The slice of a Fastify reply the route uses. */
export interface FastifyReplyLike {
  /** The node:http response. */
  readonly raw: NodeResponseLike;
  /** Tells Fastify the route writes the response itself. */
  hijack(): unknown;
}

/** The slice of a Fastify instance the plugin configures. */
export interface FastifyInstanceLike {
  /** Drops the inherited body parsers in this plugin's scope. */
  removeAllContentTypeParsers(): unknown;
  /** Registers a body parser in this plugin's scope. */
  addContentTypeParser(type: string, parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void): unknown;
  /** Registers a route for every method. */
  all(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<void>): unknown;
}

/**
 * A Fastify 5 plugin serving `handler` on every path of its prefix:
 * `app.register(toFastifyPlugin(handler), { prefix: '/agents/a2a' })`. In the plugin's own scope
 * Fastify's body parsers are replaced by one that reads nothing, so the body reaches the
 * handler as the adapter's capped stream (its 413 and 400 answers, not Fastify's), and the route
 * hijacks the reply so the SSE answer is written as it is produced, never buffered. The raw URL
 * keeps the prefix, so the card's URL carries it.
 */
export function toFastifyPlugin(handler: FetchHandler, options: NodeListenerOptions = {}): (instance: FastifyInstanceLike) => Promise<void> {
  const serve = createNodeServe(handler, options);
  const route = async (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<void> => {
    reply.hijack();
    await serve(request.raw, reply.raw);
  };
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    instance.all('/', route);
    instance.all('/*', route);
  };
}

/** The slice of a Koa context the middleware uses. */
export interface KoaContextLike {
  /** The node:http request. */
  readonly req: NodeRequestLike;
  /** The node:http response. */
  readonly res: NodeResponseLike;
  /** The request target before `koa-mount` or a router prefix changed the path. */
  readonly originalUrl?: string | undefined;
  /** Set to false so Koa leaves the response to the bridge. */
  respond?: boolean | undefined;
  /** What a body parser (`@koa/bodyparser`) made of the body. */
  readonly request: { readonly body?: unknown; readonly rawBody?: unknown };
}

/**
 * A Koa 3 middleware that answers with `handler`: `app.use(mount('/agents/a2a', toKoaMiddleware(handler)))`.
 * It sets `ctx.respond = false`, so Koa neither buffers the SSE answer nor sends its own body,
 * and builds the request URL from `ctx.originalUrl`, so the card's URL carries the mount path.
 * A body `@koa/bodyparser` already read is used through its `rawBody` (its parsed value when
 * the raw text is missing) and held to `maxBodyBytes`. Mount it before the body parser to
 * have the bridge's own 413 and 400 answers for every body, not the parser's.
 */
export function toKoaMiddleware(handler: FetchHandler, options: NodeListenerOptions = {}): (context: KoaContextLike) => Promise<void> {
  const serve = createNodeServe(handler, options);
  return async (context) => {
    context.respond = false;
    const { body, rawBody } = context.request;
    const parsed = typeof rawBody === 'string' ? { raw: rawBody } : body === undefined ? undefined : { parsed: body };
    await serve(context.req, context.res, { originalUrl: context.originalUrl, body: parsed });
  };
}
