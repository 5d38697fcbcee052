/**
 * Serves a fetch-style app (Hono's `app.fetch`, or the router of Next.js route handlers) on a
 * loopback port with `@hono/node-server`, a request/response bridge that is not ours, so the
 * handlers' own limits are what the test sees.
 */

import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { RunningApp } from './checklist.js';
import { listening } from './listen.js';

/** Starts `fetch` on 127.0.0.1, on an ephemeral port. */
export function serveFetch(fetch: (request: Request) => Response | Promise<Response>): Promise<RunningApp> {
  return listening(serve({ fetch, port: 0, hostname: '127.0.0.1' }) as Server);
}
