/**
 * The edges in a Hono app: the handlers take Hono's web-standard request as it is, so each
 * mount is one line. Hono streams the SSE answer, and `@hono/node-server` aborts the request's
 * signal when the client goes away.
 */

import { Hono } from 'hono';
import { MOUNTS, type EdgeHandlers } from './edge.js';

/** The Hono app serving `handlers` under their prefixes. */
export function createHonoApp(handlers: EdgeHandlers): Hono {
  const app = new Hono();
  for (const [edge, path] of Object.entries(MOUNTS) as [keyof EdgeHandlers, string][]) {
    app.all(path, (c) => handlers[edge](c.req.raw));
    app.all(`${path}/*`, (c) => handlers[edge](c.req.raw));
  }
  return app;
}
