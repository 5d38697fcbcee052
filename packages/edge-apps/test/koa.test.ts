import { describe, expect, it } from 'vitest';
import { createKoaApp } from '../../../examples/edge-app/koa-app.js';
import type { EdgeHandlers } from '../../../examples/edge-app/edge.js';
import { listening } from './support/listen.js';
import { edgeChecklist, MAX_BODY_BYTES, type RunningApp } from './support/checklist.js';
import { streamLimitChecklist } from './support/stream-limit.js';

function startKoa(handlers: EdgeHandlers): Promise<RunningApp> {
  return listening(createKoaApp(handlers, MAX_BODY_BYTES).listen(0, '127.0.0.1'));
}

edgeChecklist('Koa', startKoa);
streamLimitChecklist('Koa', startKoa);

describe('Koa: what the app around the bridge does', () => {
  it('hands the handler the body @koa/bodyparser already read, and the URL before koa-mount cut it', async () => {
    const handlers: EdgeHandlers = {
      a2a: async (request) => Response.json({ url: request.url, body: await request.text() }),
      mcp: async () => Response.json({}),
      agui: async () => Response.json({}),
    };
    const app = await startKoa(handlers);
    try {
      const response = await fetch(`${app.url}/agents/a2a/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{ "a" : 1 }' });
      // The parser's raw text, byte for byte.
      expect(await response.json()).toEqual({ url: `${app.url}/agents/a2a/rpc`, body: '{ "a" : 1 }' });
    } finally {
      await app.close();
    }
  });
});
