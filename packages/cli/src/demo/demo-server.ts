/**
 * The demo's HTTP face with --serve: the A2A bridge under /a2a, the MCP bridge under /mcp, the
 * AG-UI live endpoint at /agui and the AG-UI live page at /.
 */

import { readFile } from 'node:fs/promises';
import { serveLoopback, type FetchHandler, type LoopbackServer } from '../http-server.js';

/** The live page shipped in the repository (examples/agui-live), found from this file. */
const PAGE_DIR = new URL('../../../../examples/agui-live/', import.meta.url);
const PAGE_FILES: Readonly<Record<string, readonly [string, string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
};

/** The handlers the demo server routes to. */
export interface DemoRoutes {
  /** A2A JSON-RPC and Agent Card. */
  readonly a2a: FetchHandler;
  /** MCP Streamable HTTP. */
  readonly mcp: FetchHandler;
  /** AG-UI Server-Sent Events. */
  readonly agui: FetchHandler;
}

/** Strips a path prefix, so a bridge handler sees its own root. */
async function mounted(prefix: string, handler: FetchHandler, request: Request): Promise<Response> {
  const url = new URL(request.url);
  url.pathname = url.pathname.slice(prefix.length) || '/';
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return handler(new Request(url, { method: request.method, headers: request.headers, signal: request.signal, body: hasBody ? await request.arrayBuffer() : null }));
}

async function page(path: string): Promise<Response> {
  // Browsers ask for it whatever the page says; an empty answer keeps their consoles quiet.
  if (path === '/favicon.ico') return new Response(null, { status: 204, headers: { 'cache-control': 'max-age=86400' } });
  const file = PAGE_FILES[path];
  if (file === undefined) return new Response('not found\n', { status: 404, headers: { 'content-type': 'text/plain' } });
  try {
    return new Response(await readFile(new URL(file[0], PAGE_DIR)), { headers: { 'content-type': file[1] } });
  } catch {
    return new Response('the AG-UI live page is in the repository at examples/agui-live/\n', { status: 404, headers: { 'content-type': 'text/plain' } });
  }
}

/** Starts the demo server on 127.0.0.1 (port 0 = ephemeral). */
export function startDemoServer(routes: DemoRoutes, port: number = 0): Promise<LoopbackServer> {
  return serveLoopback(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/a2a' || path.startsWith('/a2a/')) return mounted('/a2a', routes.a2a, request);
    if (path === '/mcp' || path.startsWith('/mcp/')) return mounted('/mcp', routes.mcp, request);
    if (path === '/agui') return routes.agui(request);
    return page(path);
  }, port);
}
