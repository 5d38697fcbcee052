/**
 * The node:http adapter for the bridges' web-standard handlers, with the body, time and stream
 * limits a public endpoint needs. It is written against structural request/response types, so
 * it imports nothing from node:*.
 * @module
 */
export { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_STREAMS_PER_CLIENT, toNodeListener } from './node-adapter.js';
export type { NodeListenerOptions } from './node-adapter.js';
export type { FetchHandler, NodeRequestLike, NodeResponseLike } from './node-types.js';
export { applyServerLimits, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './server-limits.js';
export type { NodeServerLike, ServerLimits } from './server-limits.js';
