import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createHonoApp } from '../../../examples/edge-app/hono-app.js';
import type { EdgeHandlers } from '../../../examples/edge-app/edge.js';
import { edgeChecklist, type RunningApp } from './support/checklist.js';
import { serveFetch } from './support/serve-fetch.js';

// No adapter of ours: Hono hands the handlers its web-standard request as it is.
edgeChecklist('Hono', (handlers: EdgeHandlers): Promise<RunningApp> => serveFetch(createHonoApp(handlers).fetch));

describe('Hono: a body a middleware already read', () => {
  it('reaches the handler through the README line, which hands over what Hono kept', async () => {
    const handler = async (request: Request) => Response.json({ body: await request.text() });
    const app = new Hono();
    // A middleware of the app reads the JSON body first, as validators do.
    app.use('*', async (c, next) => {
      await c.req.json();
      await next();
    });
    const wasRead: boolean[] = [];
    app.all('/agents/a2a', async (c) => {
      wasRead.push(c.req.raw.bodyUsed);
      return handler(c.req.raw.bodyUsed ? new Request(c.req.raw, { body: await c.req.arrayBuffer() }) : c.req.raw);
    });
    const served = await serveFetch(app.fetch);
    try {
      const response = await fetch(`${served.url}/agents/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
      expect(await response.json()).toEqual({ body: '{"x":1}' });
      // The raw request's stream was used up by the middleware: passing it on as it is would fail.
      expect(wasRead).toEqual([true]);
    } finally {
      await served.close();
    }
  });
});
