/**
 * The slice of node:http's IncomingMessage the adapter reads. Declared structurally so this file
 * never imports node:* and the package stays runtime-neutral.
 */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  /** HTTP method. */
  readonly method?: string | undefined;
  /** Request target (path and query). */
  readonly url?: string | undefined;
  /** Lower-cased header map. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The socket; a TLS socket has `encrypted: true`. */
  readonly socket?: object | null | undefined;
}

/** The slice of node:http's ServerResponse the adapter writes. */
export interface NodeResponseLike {
  /** Status code to send. */
  statusCode: number;
  /** Sets one header. */
  setHeader(name: string, value: string | readonly string[]): unknown;
  /** Writes a body chunk; false asks the writer to wait for `drain`. */
  write(chunk: Uint8Array): boolean;
  /** Ends the response. */
  end(chunk?: Uint8Array): unknown;
  /** Sends the head now (used before a streamed body). */
  flushHeaders?(): void;
  /** True once the response is finished or the socket is gone. */
  readonly writableEnded?: boolean;
  /** Registers a listener (`close`, `drain`). */
  once?(event: string, listener: () => void): unknown;
}

/** A web-standard handler, as the bridges' HTTP handlers are. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Origin used to build the request URL when the request has no Host header (default `http://localhost`). */
  readonly fallbackOrigin?: string | undefined;
}

function isEncrypted(socket: object | null | undefined): boolean {
  return typeof socket === 'object' && socket !== null && (socket as { readonly encrypted?: unknown }).encrypted === true;
}

function headerValue(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

async function collect(request: NodeRequestLike): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const encoder = new TextEncoder();
  for await (const chunk of request) {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    chunks.push(bytes);
    total += bytes.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function toRequest(request: NodeRequestLike, body: Uint8Array<ArrayBuffer> | undefined, signal: AbortSignal, fallbackOrigin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    const text = headerValue(value);
    if (text !== undefined && !name.startsWith(':')) headers.set(name, text);
  }
  const host = headerValue(request.headers['host']);
  const origin = host !== undefined ? `${isEncrypted(request.socket) ? 'https' : 'http'}://${host}` : fallbackOrigin;
  let url: URL;
  try {
    url = new URL(request.url ?? '/', origin);
  } catch {
    url = new URL('/', fallbackOrigin);
  }
  const method = request.method ?? 'GET';
  return new Request(url, { method, headers, signal, ...(body !== undefined ? { body } : {}) });
}

async function writeResponse(response: Response, target: NodeResponseLike, closed: AbortSignal): Promise<void> {
  target.statusCode = response.status;
  response.headers.forEach((value, name) => {
    target.setHeader(name, value);
  });
  if (response.body === null) {
    target.end();
    return;
  }
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    // One write for a whole body: a separate head packet costs a delayed-ACK round on loopback.
    target.end(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  target.flushHeaders?.();
  const reader = response.body.getReader();
  // A client that goes away cancels the body, so its producer (a reply wait) stops too.
  const stop = (): void => void reader.cancel().catch(() => undefined);
  closed.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      if (closed.aborted) break;
      const { done, value } = await reader.read();
      if (done || closed.aborted) break;
      if (!target.write(value) && target.once !== undefined && !closed.aborted) {
        await new Promise<void>((resolve) => {
          target.once?.('drain', resolve);
          closed.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    }
  } finally {
    closed.removeEventListener('abort', stop);
    await reader.cancel().catch(() => undefined);
    if (target.writableEnded !== true && !closed.aborted) target.end();
  }
}

/**
 * Adapts a web-standard `(Request) => Promise<Response>` handler to node:http's
 * `(req, res)` listener: `http.createServer(toNodeListener(handler))`. Streamed bodies (SSE) are
 * written as they arrive, and a closed connection aborts the request's signal.
 */
export function toNodeListener(handler: FetchHandler, options: NodeListenerOptions = {}): (request: NodeRequestLike, response: NodeResponseLike) => void {
  const fallbackOrigin = options.fallbackOrigin ?? 'http://localhost';
  return (request, response) => {
    const controller = new AbortController();
    response.once?.('close', () => controller.abort());
    void (async () => {
      try {
        const method = (request.method ?? 'GET').toUpperCase();
        const body = method === 'GET' || method === 'HEAD' ? undefined : await collect(request);
        const answer = await handler(toRequest(request, body, controller.signal, fallbackOrigin));
        await writeResponse(answer, response, controller.signal);
      } catch {
        if (response.writableEnded !== true) {
          try {
            response.statusCode = 500;
            response.setHeader('content-type', 'application/json');
            response.end(new TextEncoder().encode('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"internal error"}}'));
          } catch {
            // the socket is gone; nothing left to answer
          }
        }
      }
    })();
  };
}
