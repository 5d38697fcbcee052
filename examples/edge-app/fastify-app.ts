/**
 * The edges in a Fastify 5 app: A2A, MCP and AG-UI each registered as a plugin under a prefix
 * (inside each plugin the bridge reads the body itself and writes SSE unbuffered), the app's
 * own JSON routes untouched, and the AG-UI live page at `/`.
 *
 * Run: `node --import tsx --conditions=@agdx/source examples/edge-app/fastify-app.ts`.
 */

import Fastify, { type FastifyInstance } from 'fastify';
import { toFastifyPlugin } from '@agdx/bridge-kit/node';
import { MOUNTS, type EdgeHandlers } from './edge.js';
import { livePage } from './live-page.js';

/** The Fastify app serving `handlers`; `maxBodyBytes` caps every bridge body (it matches the handlers' cap). */
export function createFastifyApp(handlers: EdgeHandlers, maxBodyBytes: number): FastifyInstance {
  const app = Fastify();
  for (const [edge, mount] of Object.entries(MOUNTS) as [keyof EdgeHandlers, string][]) {
    void app.register(toFastifyPlugin(handlers[edge], { maxBodyBytes }), { prefix: mount });
  }
  for (const [path, file] of livePage()) app.get(path, async (_request, reply) => reply.type(file.type).send(file.body));
  // The app's own route still gets Fastify's JSON parser.
  app.post('/echo', async (request) => ({ echoed: request.body }));
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startEdge } = await import('./edge.js');
  const edge = await startEdge(new Map([['demo-token', { audience: ['agdx-edge'], scopes: ['agents'] }]]));
  await createFastifyApp(edge.handlers, 64 * 1024).listen({ port: 8080, host: '127.0.0.1' });
  console.log('http://127.0.0.1:8080/');
}
