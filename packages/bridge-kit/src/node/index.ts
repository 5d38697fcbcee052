/**
 * The node:http adapter for the bridges' web-standard handlers, with the body, time and stream
 * limits a public endpoint needs, and the helpers that mount it in Express, Fastify and Koa. It
 * is written against structural request/response types, so it imports nothing from node:* and
 * no framework.
 * @module
 */
export { createNodeServe, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_STREAMS_PER_CLIENT, toNodeListener } from './node-adapter.js';
export type { FrameworkRequest, NodeListenerOptions, NodeServe } from './node-adapter.js';
export type { ParsedBody } from './framework-body.js';
export { toExpressMiddleware, toFastifyPlugin, toKoaMiddleware } from './frameworks.js';
export type {
  ExpressErrorMiddleware,
  ExpressMiddleware,
  ExpressRequestLike,
  FastifyInstanceLike,
  FastifyReplyLike,
  FastifyRequestLike,
  KoaContextLike,
} from './frameworks.js';
export type { FetchHandler, NodeRequestLike, NodeResponseLike } from './node-types.js';
export { applyServerLimits, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './server-limits.js';
export type { NodeServerLike, ServerLimits } from './server-limits.js';
