/**
 * The edges in an Express 5 app that already has its own JSON parser and routes: A2A, MCP and
 * AG-UI each under a path prefix, and the AG-UI live page at `/`.
 *
 * Run: `node --import tsx --conditions=@agdx/source examples/edge-app/express-app.ts`, then
 * `curl -H 'authorization: Bearer demo-token' …`.
 */

import express from 'express';
import { toExpressMiddleware } from '@agdx/bridge-kit/node';
import { MOUNTS, type EdgeHandlers } from './edge.js';
import { livePage } from './live-page.js';

/** The Express app serving `handlers`; `maxBodyBytes` caps every bridge body (it matches the handlers' cap). */
export function createExpressApp(handlers: EdgeHandlers, maxBodyBytes: number): express.Express {
  const app = express();
  // The app's own parser runs first, as in most apps: the bridges use the body it parsed.
  app.use(express.json());
  for (const [edge, mount] of Object.entries(MOUNTS) as [keyof EdgeHandlers, string][]) {
    app.use(mount, ...toExpressMiddleware(handlers[edge], { maxBodyBytes }));
  }
  for (const [path, file] of livePage()) app.get(path, (_request, response) => void response.type(file.type).send(file.body));
  app.get('/health', (_request, response) => void response.json({ ok: true }));
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startEdge } = await import('./edge.js');
  const edge = await startEdge(new Map([['demo-token', { audience: ['agdx-edge'], scopes: ['agents'] }]]));
  createExpressApp(edge.handlers, 64 * 1024).listen(8080, '127.0.0.1', () => console.log('http://127.0.0.1:8080/'));
}
