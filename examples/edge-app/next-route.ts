/**
 * The edges as Next.js App Router route handlers. A route handler is `(Request) => Response`,
 * which is what every bridge handler already is, so a catch-all route file per edge exports it
 * for each method, for example `app/agents/a2a/[[...path]]/route.ts`:
 *
 * ```ts
 * export const runtime = 'nodejs';        // the MemoryLog or Iggy client lives in the Node runtime
 * export const dynamic = 'force-dynamic'; // never cached, SSE streamed as produced
 * export const { GET, POST, OPTIONS } = routeHandlers(edge.handlers.a2a);
 * ```
 *
 * Next hands the handler the full URL, so the A2A card's URL carries `/agents/a2a`, and aborts
 * `request.signal` when the client goes away.
 */

import type { EdgeHandler } from './edge.js';

/** The methods a route file exports. */
export interface RouteHandlers {
  readonly GET: EdgeHandler;
  readonly POST: EdgeHandler;
  readonly OPTIONS: EdgeHandler;
  readonly DELETE: EdgeHandler;
}

/** One bridge handler exported under every method it answers (the bridge answers 405 itself to the others). */
export function routeHandlers(handler: EdgeHandler): RouteHandlers {
  return { GET: handler, POST: handler, OPTIONS: handler, DELETE: handler };
}
