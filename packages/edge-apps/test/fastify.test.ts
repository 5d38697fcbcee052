import { describe, expect, it } from 'vitest';
import { createFastifyApp } from '../../../examples/edge-app/fastify-app.js';
import type { EdgeHandlers } from '../../../examples/edge-app/edge.js';
import { edgeChecklist, MAX_BODY_BYTES, type RunningApp } from './support/checklist.js';
import { streamLimitChecklist } from './support/stream-limit.js';

async function startFastify(handlers: EdgeHandlers): Promise<RunningApp> {
  const app = createFastifyApp(handlers, MAX_BODY_BYTES);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    close: async () => {
      // Hijacked streams are not Fastify's to wait for.
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

edgeChecklist('Fastify', startFastify);
streamLimitChecklist('Fastify', startFastify);

describe('Fastify: what the app around the bridge does', () => {
  const handlers: EdgeHandlers = {
    a2a: async (request) => Response.json({ url: request.url, body: await request.text() }),
    mcp: async () => Response.json({}),
    agui: async () => Response.json({}),
  };

  it('passes the raw body and the prefixed URL to the handler, and keeps its JSON parser for its own routes', async () => {
    const app = await startFastify(handlers);
    try {
      const bridged = await fetch(`${app.url}/agents/a2a/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{ "a" : 1 }' });
      expect(await bridged.json()).toEqual({ url: `${app.url}/agents/a2a/x`, body: '{ "a" : 1 }' });
      // A content type Fastify has no parser for reaches the bridge too (which answers 415 itself).
      const text = await fetch(`${app.url}/agents/a2a`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'plain' });
      expect(await text.json()).toEqual({ url: `${app.url}/agents/a2a`, body: 'plain' });
      const own = await fetch(`${app.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"b":2}' });
      expect(await own.json()).toEqual({ echoed: { b: 2 } });
    } finally {
      await app.close();
    }
  });

  it('answers a body past the cap with the bridge 413 even without a declared length', async () => {
    const app = await startFastify(handlers);
    try {
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`"${'y'.repeat(MAX_BODY_BYTES + 10)}"`));
          controller.close();
        },
      });
      const response = await fetch(`${app.url}/agents/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunks, duplex: 'half' } as RequestInit);
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null });
    } finally {
      await app.close();
    }
  });
});
