/**
 * Socket-level time limits of a node:http server, which a request listener cannot set itself:
 * how long a client may take to send its request head, and how long a connection may stay open
 * without sending one. A client that trickles its headers or opens sockets and sends nothing
 * gets 408 and is disconnected instead of holding the socket until Node's defaults (60 s for
 * headers, 300 s for a whole request).
 */

/** Time limits of {@link applyServerLimits}. */
export interface ServerLimits {
  /** The request head (request line and headers) must arrive within this time, ms. Default 10 000. */
  readonly headersTimeoutMs?: number | undefined;
  /**
   * The whole request, body included, must arrive within this time, ms. Default 30 000. The
   * adapter's own `bodyTimeoutMs` answers a slow body sooner; this is Node's backstop.
   */
  readonly requestTimeoutMs?: number | undefined;
}

/** Default for {@link ServerLimits.headersTimeoutMs}. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Default for {@link ServerLimits.requestTimeoutMs}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The slice of node:http's Server this module configures. */
export interface NodeServerLike {
  /** Node's limit for the request head, ms. */
  headersTimeout: number;
  /** Node's limit for the whole request, ms. */
  requestTimeout: number;
  /** Registers a listener (`connection`, `request`). */
  on(event: string, listener: (...args: never[]) => void): unknown;
}

interface SocketLike {
  write(data: string): unknown;
  destroy(): void;
  once(event: string, listener: () => void): unknown;
}

interface RequestLike {
  readonly socket?: object | null;
}

const REQUEST_TIMEOUT_HEAD = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number of milliseconds`);
  return v;
}

/**
 * Applies the limits to `server` (a node:http or node:https Server) and returns it. Node checks
 * its own two limits only every `connectionsCheckingInterval` (30 s by default), so on a plain
 * HTTP server the first request head of a connection is also timed here, exactly: a socket that
 * has not delivered one within `headersTimeoutMs` gets 408 and is closed.
 */
export function applyServerLimits<S extends NodeServerLike>(server: S, limits: ServerLimits = {}): S {
  const headersMs = positive(limits.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeoutMs');
  const requestMs = Math.max(headersMs, positive(limits.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeoutMs'));
  server.requestTimeout = requestMs;
  server.headersTimeout = headersMs;
  // An https server hands 'connection' the raw socket but 'request' the TLS socket wrapping it,
  // so the two cannot be paired here: TLS servers keep Node's own (coarser) head check only.
  if (typeof (server as { setSecureContext?: unknown }).setSecureContext === 'function') return server;
  const waiting = new WeakMap<object, ReturnType<typeof setTimeout>>();
  server.on('connection', ((socket: SocketLike) => {
    const timer = setTimeout(() => {
      try {
        socket.write(REQUEST_TIMEOUT_HEAD);
      } finally {
        socket.destroy();
      }
    }, headersMs);
    waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  }) as (...args: never[]) => void);
  server.on('request', ((request: RequestLike) => {
    const socket = request.socket;
    if (typeof socket !== 'object' || socket === null) return;
    const timer = waiting.get(socket);
    if (timer !== undefined) {
      clearTimeout(timer);
      waiting.delete(socket);
    }
  }) as (...args: never[]) => void);
  return server;
}
