/**
 * Serves a fetch-style app (Hono's `app.fetch`, or the router of Next.js route handlers) on a
 * loopback port with `@hono/node-server`, a request/response bridge that is not ours, so the
 * handlers' own limits are what the test sees.
 */

import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { RunningApp } from './checklist.js';

/** Starts `fetch` on 127.0.0.1, on an ephemeral port. */
export async function serveFetch(fetch: (request: Request) => Response | Promise<Response>): Promise<RunningApp> {
  let server: Server | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server?.closeAllConnections();
        server?.close(() => resolve());
      }),
  };
}
