/**
 * Bridges that check first: the A2A and MCP handlers (with an authorization hook) behind
 * bridge-kit's node adapter and `applyServerLimits`, sent hostile bodies over raw sockets:
 * 100 MB unauthenticated bodies (declared and chunked), an authenticated body over the cap,
 * bodies and request heads that trickle in. Each must be answered (401, 413 or 408) quickly,
 * without the server's memory growing with the body.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { applyServerLimits, toNodeListener } from '@agdx/bridge-kit/node';
import { edgeHandlers, type FetchHandler } from './edge-handlers.js';

/** One hostile request and how it ended. */
export interface HostileBodyOutcome {
  readonly name: string;
  /** The status answered (0 when the socket closed without one). */
  readonly status: number;
  /** From the first byte sent to the answer, ms. */
  readonly ms: number;
  /** Bytes the client managed to send before the server answered and closed. */
  readonly sentMb: number;
  /** Growth of the process's resident memory while it ran, MB. */
  readonly rssGrowthMb: number;
}

/** Limits the bridges are served with in this scenario. */
export const BODY_LIMITS = { maxBodyBytes: 1024 * 1024, bodyTimeoutMs: 500, headersTimeoutMs: 500 } as const;

const TOKEN = 'Bearer good';
const AUDIENCE = 'https://agents.example/edge';
const mb = (bytes: number): number => Math.round((bytes / 1_048_576) * 10) / 10;

async function listen(handler: FetchHandler): Promise<{ server: Server; port: number }> {
  const server = applyServerLimits(createServer(toNodeListener(handler, BODY_LIMITS)), BODY_LIMITS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Send {
  readonly head: string;
  /** Body bytes to send at full speed (chunk framing added when `chunked`). */
  readonly bodyBytes?: number;
  readonly chunked?: boolean;
  /** Instead: this many bytes, one per `trickleMs`. */
  readonly trickle?: number;
  readonly trickleMs?: number;
}

/** Sends one request over a raw socket, as fast as the server takes it, until it answers. */
function exchange(port: number, send: Send): Promise<{ status: number; ms: number; sent: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    let sent = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const finish = (): void => {
      clearInterval(timer);
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0), ms: Math.round(performance.now() - started), sent });
    };
    socket.on('data', (d: Buffer) => {
      reply += d.toString('latin1');
      if (/\r\n\r\n/.test(reply)) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(send.head);
    if (send.trickle !== undefined) {
      let left = send.trickle;
      timer = setInterval(() => {
        if (left-- <= 0 || socket.destroyed) return clearInterval(timer);
        socket.write('a');
        sent++;
      }, send.trickleMs ?? 100);
      return;
    }
    const total = send.bodyBytes ?? 0;
    const piece = Buffer.alloc(256 * 1024, 0x61);
    const chunk = send.chunked === true ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
    const pump = (): void => {
      while (!socket.destroyed && sent < total) {
        sent += piece.length;
        if (!socket.write(chunk)) return;
      }
    };
    socket.on('drain', pump);
    pump();
  });
}

/** Runs the hostile requests once against A2A and MCP; `bodyMb` is the size of the large bodies. */
export async function runHostileBodies(bodyMb = 100): Promise<HostileBodyOutcome[]> {
  const handlers = await edgeHandlers({
    audience: AUDIENCE,
    scope: 'agents:call',
    claims: (request) => (request.headers.get('authorization') === TOKEN ? { audience: [AUDIENCE], scopes: ['agents:call'] } : undefined),
  });
  const outcomes: HostileBodyOutcome[] = [];
  try {
    for (const [bridge, handler] of [['a2a', handlers.a2a], ['mcp', handlers.mcp]] as const) {
      const { server, port } = await listen(handler);
      const big = bodyMb * 1024 * 1024;
      const post = (extra: string): string => `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n${extra}\r\n`;
      const cases: readonly [string, Send][] = [
        [`${bridge}: ${bodyMb} MB unauthenticated, declared length`, { head: post(`content-length: ${big}\r\n`), bodyBytes: big }],
        [`${bridge}: ${bodyMb} MB unauthenticated, chunked`, { head: post('transfer-encoding: chunked\r\n'), bodyBytes: big, chunked: true }],
        [`${bridge}: ${bodyMb} MB authenticated, chunked`, { head: post(`authorization: ${TOKEN}\r\ntransfer-encoding: chunked\r\n`), bodyBytes: big, chunked: true }],
        [`${bridge}: slow body, authenticated`, { head: post(`authorization: ${TOKEN}\r\ncontent-length: 100\r\n`), trickle: 100, trickleMs: 100 }],
        [`${bridge}: slow request head`, { head: 'POST / HTTP/1.1\r\nhost: 127.0.0.1\r\n', trickle: 100, trickleMs: 100 }],
      ];
      try {
        for (const [name, send] of cases) {
          const before = process.memoryUsage().rss;
          let peak = before;
          const sampler = setInterval(() => {
            peak = Math.max(peak, process.memoryUsage().rss);
          }, 20);
          const result = await exchange(port, send);
          clearInterval(sampler);
          peak = Math.max(peak, process.memoryUsage().rss);
          outcomes.push({ name, status: result.status, ms: result.ms, sentMb: mb(result.sent), rssGrowthMb: mb(peak - before) });
        }
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
  } finally {
    await handlers.client.close();
  }
  return outcomes;
}
