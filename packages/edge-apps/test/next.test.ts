/**
 * Next.js App Router route handlers are `(Request) => Response` functions exported per method.
 * Running `next` itself (a build, its compiler) is too heavy for this suite, so the test does
 * what Next's router does with a route file: it calls the exported function for the request's
 * method of the route whose folder matches the path, over a real HTTP server that is not ours.
 */

import { routeHandlers, type RouteHandlers } from '../../../examples/edge-app/next-route.js';
import { MOUNTS, type EdgeHandlers } from '../../../examples/edge-app/edge.js';
import { edgeChecklist, type RunningApp } from './support/checklist.js';
import { serveFetch } from './support/serve-fetch.js';

/** `app/agents/<edge>/[[...path]]/route.ts` for each edge, routed as Next routes them. */
function nextRouter(handlers: EdgeHandlers): (request: Request) => Promise<Response> {
  const routes = (Object.entries(MOUNTS) as [keyof EdgeHandlers, string][]).map(([edge, mount]) => [mount, routeHandlers(handlers[edge])] as const);
  return async (request) => {
    const path = new URL(request.url).pathname;
    const route = routes.find(([mount]) => path === mount || path.startsWith(`${mount}/`))?.[1];
    const method = request.method as keyof RouteHandlers;
    if (route === undefined) return new Response('not found', { status: 404 });
    if (!(method in route)) return new Response(null, { status: 405 });
    return route[method](request);
  };
}

edgeChecklist('Next.js route handlers', (handlers: EdgeHandlers): Promise<RunningApp> => serveFetch(nextRouter(handlers)));
