/**
 * A loopback HTTP server for web-standard `(Request) => Promise<Response>` handlers, on
 * node:http through `@agdx/bridge-kit/node`, so the demo endpoints get the same checks as a
 * bridge deployment: a 1 MiB body cap enforced while the body arrives (413), time limits for the
 * request head and body (408), a per-client limit on open event streams (429), and response
 * bodies (Server-Sent Events included) streamed as they are produced.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyServerLimits, toNodeListener, type FetchHandler, type NodeListenerOptions, type ServerLimits } from '@agdx/bridge-kit/node';

export type { FetchHandler };

/** A running server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port. */
  readonly port: number;
  /** Stops accepting, drops open connections (live SSE included) and resolves when closed. */
  close(): Promise<void>;
}

/** Limits of {@link serveLoopback}: the adapter's body and stream limits and the server's head limits. */
export type LoopbackLimits = Omit<NodeListenerOptions, 'fallbackOrigin'> & ServerLimits;

/** Serves `handler` on 127.0.0.1 (port 0 = ephemeral) with `limits` (bridge-kit's defaults otherwise). */
export async function serveLoopback(handler: FetchHandler, port: number = 0, limits: LoopbackLimits = {}): Promise<LoopbackServer> {
  let origin = 'http://127.0.0.1';
  const server = applyServerLimits(createServer(toNodeListener(handler, { ...limits, fallbackOrigin: origin })), limits);
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
