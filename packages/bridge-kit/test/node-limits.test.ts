/**
 * The node adapter checks before it buffers: a declared or streamed body over the cap gets 413
 * without being read past the cap, a slow body 408, a handler that answers from the headers
 * never costs a body read, a client past its stream limit gets 429, and a server with
 * `applyServerLimits` answers a trickled request head with 408.
 */

import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { limitBody, reserveEventStream } from '@agdx/bridge-kit';
import { applyServerLimits, toNodeListener, type FetchHandler, type NodeListenerOptions } from '@agdx/bridge-kit/node';
import { afterEach, describe, expect, it } from 'vitest';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function serve(handler: FetchHandler, options: NodeListenerOptions = {}, limits?: Parameters<typeof applyServerLimits>[1]): Promise<number> {
  const server = createServer(toNodeListener(handler, options));
  if (limits !== undefined) applyServerLimits(server, limits);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Opens a raw socket and collects what the server sends until it closes. */
function raw(port: number): { socket: Socket; received: Promise<string>; written: () => number } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let text = '';
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
  });
  socket.on('error', () => undefined);
  const received = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  return { socket, received, written: () => socket.bytesWritten };
}

const statusOf = (reply: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);

/** Reads the whole body the way the bridges do, reporting how many bytes it was handed. */
function reading(seen: { bytes: number; called: number }): FetchHandler {
  return async (request) => {
    seen.called++;
    try {
      const reader = request.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        seen.bytes += value.byteLength;
      }
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    } catch {
      return new Response('{"error":"body"}', { status: 400, headers: { 'content-type': 'application/json' } });
    }
  };
}

describe('toNodeListener limits', () => {
  it('answers 501 to a method a fetch Request cannot carry (TRACE, TRACK) without calling the handler, and keeps serving', async () => {
    const seen = { bytes: 0, called: 0 };
    const port = await serve(reading(seen));
    for (const method of ['TRACE', 'TRACK']) {
      const { socket, received } = raw(port);
      socket.write(`${method} / HTTP/1.1\r\nhost: x\r\n\r\n`);
      const reply = await received;
      // Node's parser may refuse a method it does not know itself; it never reaches the handler then either.
      expect([501, 400]).toContain(statusOf(reply));
      if (statusOf(reply) === 501) expect(reply).toContain('"message":"invalid request"');
    }
    const { socket, received } = raw(port);
    socket.write('TRACE / HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(statusOf(await received)).toBe(501);
    expect(seen.called).toBe(0);
    const ok = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(ok.status).toBe(200);
    expect(seen.called).toBe(1);
  });

  it('answers 413 to a declared Content-Length over the cap without calling the handler', async () => {
    const seen = { bytes: 0, called: 0 };
    const port = await serve(reading(seen), { maxBodyBytes: 1024 });
    const { socket, received } = raw(port);
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 104857600\r\n\r\n');
    socket.write(Buffer.alloc(64 * 1024));
    const reply = await received;
    expect(statusOf(reply)).toBe(413);
    expect(reply.toLowerCase()).toContain('connection: close');
    expect(seen.called).toBe(0);
  });

  it('cuts a chunked body off at the cap with 413, never handing the handler more than the cap', async () => {
    const seen = { bytes: 0, called: 0 };
    const port = await serve(reading(seen), { maxBodyBytes: 4096 });
    const { socket, received } = raw(port);
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    for (let i = 0; i < 16; i++) socket.write(`400\r\n${'a'.repeat(1024)}\r\n`);
    const reply = await received;
    expect(statusOf(reply)).toBe(413);
    expect(seen.bytes).toBeLessThanOrEqual(4096);
  });

  it('answers 408 to a body that does not arrive in time', async () => {
    const seen = { bytes: 0, called: 0 };
    const port = await serve(reading(seen), { bodyTimeoutMs: 200 });
    const { socket, received } = raw(port);
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a"');
    const started = performance.now();
    const reply = await received;
    expect(statusOf(reply)).toBe(408);
    // Generous: the limit is 200 ms; the point is that it is not Node's 300 s default.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('never reads the body of a request the handler refuses from its headers, and closes the connection', async () => {
    const port = await serve(async (request) =>
      request.headers.get('authorization') === null ? new Response(null, { status: 401 }) : new Response(await request.text()),
    );
    const { socket, received } = raw(port);
    // Chunked, so no declared length gives the body away before the handler runs.
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    let sent = 0;
    const chunk = Buffer.concat([Buffer.from('40000\r\n'), Buffer.alloc(256 * 1024, 0x61), Buffer.from('\r\n')]);
    const pump = (): void => {
      while (!socket.destroyed && sent < 100 * 1024 * 1024 && socket.write(chunk)) sent += chunk.length;
    };
    socket.on('drain', pump);
    pump();
    const reply = await received;
    expect(statusOf(reply)).toBe(401);
    expect(reply.toLowerCase()).toContain('connection: close');
    // The server closed the socket long before the 100 MB were through.
    expect(sent).toBeLessThan(100 * 1024 * 1024);
  });

  it('answers 429 past the per-client stream limit, before the handler runs, and frees the slot when a stream ends', async () => {
    let started = 0;
    const port = await serve(
      async () => {
        started++;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('data: open\n\n'));
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
      { maxStreamsPerClient: 2 },
    );
    const open = async (): Promise<{ status: number; abort: AbortController }> => {
      const abort = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
      if (response.status === 200) await response.body!.getReader().read();
      return { status: response.status, abort };
    };
    const a = await open();
    const b = await open();
    const c = await open();
    expect([a.status, b.status, c.status]).toEqual([200, 200, 429]);
    expect(started).toBe(2);
    a.abort.abort();
    let again = 0;
    for (let i = 0; i < 100 && again !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const d = await open();
      again = d.status;
      d.abort.abort();
    }
    expect(again).toBe(200);
    b.abort.abort();
  });

  it('refuses the second of two concurrent stream requests at the limit before its work, when the handler reserves first', async () => {
    let started = 0;
    let arrived = 0;
    let bothIn: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    const port = await serve(
      async (request) => {
        // Both requests are past the adapter's early check before either reserves.
        if (++arrived === 2) bothIn();
        await together;
        if (!reserveEventStream(request)) return new Response('{}', { status: 429, headers: { 'content-type': 'application/json' } });
        started++;
        return new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('data: open\n\n')) }), { headers: { 'content-type': 'text/event-stream' } });
      },
      { maxStreamsPerClient: 1 },
    );
    const abort = new AbortController();
    const call = () => fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    const answers = await Promise.all([call(), call()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 429]);
    expect(started).toBe(1);
    abort.abort();
  });

  it('holds no slot for a request that accepts a stream but is answered with JSON (an MCP call), so parallel calls are not refused', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inFlight = 0;
    const port = await serve(
      async () => {
        inFlight++;
        await held;
        return new Response('{}', { headers: { 'content-type': 'application/json' } });
      },
      { maxStreamsPerClient: 1 },
    );
    const call = () => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { accept: 'application/json, text/event-stream' }, body: '{}' });
    let refused = 0;
    const calls = [call(), call(), call()].map((p) => p.then((r) => ((refused += r.status === 429 ? 1 : 0), r)));
    // All three reach the handler at once, or (what this guards against) some are refused.
    while (inFlight + refused < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('lets a handler that streams without being asked reserve its slot before it works (reserveEventStream), and gives it back when it answers otherwise', async () => {
    let worked = 0;
    const handler: FetchHandler = async (request) => {
      if (!reserveEventStream(request)) return new Response('{"error":"busy"}', { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
      // Reserving twice holds one slot.
      expect(reserveEventStream(request)).toBe(true);
      worked++;
      if (new URL(request.url).pathname === '/plain') return new Response('{}', { headers: { 'content-type': 'application/json' } });
      return new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('data: open\n\n')) }), { headers: { 'content-type': 'text/event-stream' } });
    };
    // Through limitBody too: the fresh request it makes keeps the gate.
    const port = await serve(limitBody(handler, 1024), { maxStreamsPerClient: 1 });
    // A plain answer gives the reserved slot back at once.
    expect((await fetch(`http://127.0.0.1:${port}/plain`, { method: 'POST', body: '{}' })).status).toBe(200);
    const abort = new AbortController();
    const open = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}', signal: abort.signal });
    expect(open.status).toBe(200);
    await open.body!.getReader().read();
    expect(worked).toBe(2);
    // No Accept header, yet refused before any work: the handler reserved first.
    const refused = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(429);
    expect(worked).toBe(2);
    abort.abort();
    // Outside the node adapter nothing limits streams: the reservation always succeeds.
    expect(reserveEventStream(new Request('http://h/'))).toBe(true);
  });

  it('with applyServerLimits, answers 408 to a request head that does not arrive in time', async () => {
    const port = await serve(async () => new Response('ok'), {}, { headersTimeoutMs: 200 });
    const { socket, received } = raw(port);
    socket.write('POST / HTTP/1.1\r\nhost: x\r\n');
    const reply = await received;
    expect(statusOf(reply)).toBe(408);
  });

  it('applyServerLimits sets Node\'s own limits and refuses a limit that is not positive', () => {
    const server = applyServerLimits(createServer(), { headersTimeoutMs: 2_000, requestTimeoutMs: 5_000 });
    expect([server.headersTimeout, server.requestTimeout]).toEqual([2_000, 5_000]);
    expect(() => applyServerLimits(createServer(), { headersTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => toNodeListener(async () => new Response(null), { maxBodyBytes: -1 })).toThrow(RangeError);
  });

  it('with applyServerLimits, still serves a well-behaved client', async () => {
    const port = await serve(async (request) => new Response(await request.text()), {}, { headersTimeoutMs: 200 });
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'hello' });
    expect(await response.text()).toBe('hello');
  });
});
