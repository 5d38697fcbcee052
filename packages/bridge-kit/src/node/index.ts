/**
 * The node:http adapter for the bridges' web-standard handlers. It is written against structural
 * request/response types, so it imports nothing from node:*.
 * @module
 */
export { toNodeListener } from './node-adapter.js';
export type { FetchHandler, NodeListenerOptions, NodeRequestLike, NodeResponseLike } from './node-adapter.js';
