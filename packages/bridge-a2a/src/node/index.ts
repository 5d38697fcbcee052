/**
 * The node:http adapter of the bridge's web-standard handler, and its Express, Fastify and Koa mounts (shared with the other bridges
 * through `@agdx/bridge-kit/node`). It is written against structural request/response types, so
 * it imports nothing from node:*.
 * @module
 */
export { applyServerLimits, toExpressMiddleware, toFastifyPlugin, toKoaMiddleware, toNodeListener } from '@agdx/bridge-kit/node';
export type { FetchHandler, NodeListenerOptions, NodeRequestLike, NodeResponseLike, NodeServerLike, ServerLimits } from '@agdx/bridge-kit/node';
export type { ExpressErrorMiddleware, ExpressMiddleware, FastifyInstanceLike, KoaContextLike } from '@agdx/bridge-kit/node';
