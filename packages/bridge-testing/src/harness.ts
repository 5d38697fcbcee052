import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { AgdxClient, Agent, agentMessageBody, type AgentHandle, type AgentCtx, type AgentMessage } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

/** The stream every bridge test uses. */
export const STREAM = 'bridge-test';

/** The shared fixtures folder (read in place; the same folder from src/ and dist/). */
export const FIXTURES: URL = new URL('../../../../shared/fixtures/', import.meta.url);

/** A parsed oracle fixture file. */
export function oracle<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(new URL(`oracle/${name}`, FIXTURES), 'utf8')) as T;
}

/** A bootstrapped in-memory log and a client on it. */
export async function memoryClient(partitions = 2): Promise<{ log: MemoryLog; laser: AgdxClient }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM });
  await laser.bootstrap(partitions);
  return { log, laser };
}

/** UTF-8 helpers. */
export const text: TextEncoder = new TextEncoder();
// ignoreBOM: a test worker sees a body as it was sent, a leading U+FEFF included.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
/** UTF-8 decoding (a leading U+FEFF is kept). */
export const decode = (bytes: Uint8Array): string => utf8.decode(bytes);

/** A worker agent on `listen` that answers every command through `answer` on `respond`. */
export async function worker(
  laser: AgdxClient,
  listen: string,
  respond: string,
  answer: (message: AgentMessage, ctx: AgentCtx) => Promise<void>,
  id = 'worker',
): Promise<AgentHandle> {
  const handle = Agent.builder().id(AgentId.new(id)).listenOn(listen).respondOn(respond).handler({ handle: answer }).build().spawn(laser);
  await handle.ready();
  return handle;
}

/** An echo worker: answers `handled: <body>`. */
export function echoWorker(laser: AgdxClient, listen: string, respond: string): Promise<AgentHandle> {
  return worker(laser, listen, respond, (message, ctx) => ctx.respond(text.encode(`handled: ${decode(agentMessageBody(message))}`)));
}

/** A fetch-style request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** A loopback server a test started; `close` drops open connections and stops listening. */
export interface TestServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A `serve` function that runs a fetch-style handler on a node:http server on 127.0.0.1 with an
 * ephemeral port, adapted by `toNodeListener` (each bridge passes the adapter of its own `/node`
 * entry, so its suite exercises that entry).
 */
export function serveWith(toNodeListener: (handler: FetchHandler) => RequestListener): (handler: FetchHandler) => Promise<TestServer> {
  return async (handler) => {
    const server: Server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  };
}

/** Polls `check` every 10 ms until it returns a value, up to `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Serves a Hono app (mounting a handler with `app.all('/*', c => handler(c.req.raw))`) on 127.0.0.1. */
export async function serveHono(handler: FetchHandler): Promise<TestServer> {
  const { Hono } = await import('hono');
  const { serve: honoServe } = await import('@hono/node-server');
  const app = new Hono();
  app.all('/*', (c) => handler(c.req.raw));
  const port = await new Promise<number>((resolve) => {
    const server = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    closers.set(server, server);
  });
  const server = [...closers.values()].at(-1)!;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as Server).closeAllConnections?.();
        server.close(() => resolve());
        closers.delete(server);
      }),
  };
}
const closers = new Map<object, { close(callback: () => void): unknown }>();
