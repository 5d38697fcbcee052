/**
 * A loopback HTTP server for web-standard `(Request) => Promise<Response>` handlers, on
 * node:http, streaming response bodies (Server-Sent Events included) as they are produced.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** A web-standard request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** A running server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port. */
  readonly port: number;
  /** Stops accepting, drops open connections (live SSE included) and resolves when closed. */
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const abort = new AbortController();
  req.socket.once('close', () => abort.abort());
  if (method === 'GET' || method === 'HEAD') return new Request(new URL(req.url ?? '/', origin), { method, headers, signal: abort.signal });
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  return new Request(new URL(req.url ?? '/', origin), { method, headers, body: Buffer.concat(chunks), signal: abort.signal });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  res.once('close', () => body.destroy());
  for await (const chunk of body) res.write(chunk);
  res.end();
}

/** Serves `handler` on 127.0.0.1 (port 0 = ephemeral). */
export async function serveLoopback(handler: FetchHandler, port: number = 0): Promise<LoopbackServer> {
  let origin = 'http://127.0.0.1';
  const server = createServer((req, res) => {
    toRequest(req, origin)
      .then((request) => handler(request))
      .then((response) => send(res, response))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader('content-type', 'text/plain');
        }
        res.end(res.headersSent ? undefined : `internal error: ${error instanceof Error ? error.message : String(error)}`);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${actual}`;
  return {
    url: origin,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
