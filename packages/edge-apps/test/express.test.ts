import { describe, expect, it } from 'vitest';
import { createExpressApp } from '../../../examples/edge-app/express-app.js';
import { listening } from './support/listen.js';
import { edgeChecklist, MAX_BODY_BYTES, type RunningApp, type StartApp } from './support/checklist.js';
import { streamLimitChecklist } from './support/stream-limit.js';
import type { EdgeHandlers } from '../../../examples/edge-app/edge.js';

function startExpress(handlers: EdgeHandlers): Promise<RunningApp> {
  return listening(createExpressApp(handlers, MAX_BODY_BYTES).listen(0, '127.0.0.1'));
}

const start: StartApp = startExpress;
edgeChecklist('Express', start);
streamLimitChecklist('Express', startExpress);

describe('Express: what the app around the bridge does', () => {
  const handlers: EdgeHandlers = {
    // Echoes what reached the handler, to show which body and URL the mount passed on.
    a2a: async (request) => Response.json({ url: request.url, body: await request.text(), length: request.headers.get('content-length') }),
    mcp: async () => Response.json({}),
    agui: async () => Response.json({}),
  };

  it('hands the handler the body express.json() already parsed, and the URL with the mount prefix', async () => {
    const app = await startExpress(handlers);
    try {
      const response = await fetch(`${app.url}/agents/a2a/rpc?x=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{ "a" : [1, 2] }' });
      expect(await response.json()).toEqual({ url: `${app.url}/agents/a2a/rpc?x=1`, body: '{"a":[1,2]}', length: '11' });
    } finally {
      await app.close();
    }
  });

  it("answers express.json()'s own refusals (too large, not JSON) as JSON-RPC errors, not Express's HTML page", async () => {
    const app = await startExpress(handlers);
    try {
      // Over express.json()'s 100 kB default: the parser refuses it before the bridge runs.
      const large = await fetch(`${app.url}/agents/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `"${'x'.repeat(200_000)}"` });
      expect(large.status).toBe(413);
      expect(await large.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      const broken = await fetch(`${app.url}/agents/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' });
      expect(broken.status).toBe(400);
      expect(broken.headers.get('content-type')).toContain('application/json');
      expect(await broken.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: 'invalid request' } });
    } finally {
      await app.close();
    }
  });

  it('serves the live page and its own routes next to the bridges', async () => {
    const app = await startExpress(handlers);
    try {
      const page = await fetch(`${app.url}/`);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('app.js');
      expect(await (await fetch(`${app.url}/health`)).json()).toEqual({ ok: true });
    } finally {
      await app.close();
    }
  });
});
