import { serveWith } from '@agdx/bridge-testing';
import { toNodeListener } from '@agdx/bridge-kit/node';
import { afterEach, describe, expect, it } from 'vitest';

/** Serves a fetch-style handler through the adapter on 127.0.0.1, on an ephemeral port. */
const serve = serveWith(toNodeListener);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('toNodeListener', () => {
  it('passes method, URL, headers and body through and writes status, headers and body back', async () => {
    const server = await serve(async (request) =>
      new Response(JSON.stringify({ method: request.method, url: request.url, type: request.headers.get('content-type'), body: await request.text() }), {
        status: 201,
        headers: { 'content-type': 'application/json', 'x-extra': 'yes' },
      }),
    );
    cleanups.push(() => server.close());
    const response = await fetch(`${server.url}/a/b?c=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(await response.json()).toEqual({ method: 'POST', url: `${server.url}/a/b?c=1`, type: 'application/json', body: '{"x":1}' });
  });

  it('answers 500 with a JSON-RPC internal error when the handler throws', async () => {
    const server = await serve(async () => {
      throw new Error('secret detail');
    });
    cleanups.push(() => server.close());
    const response = await fetch(`${server.url}/`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'internal error' } });
  });

  it('streams an event-stream body as it is produced and cancels it when the client goes away', async () => {
    let cancelled = false;
    let pull: (() => void) | undefined;
    const server = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('data: first\n\n'));
          pull = () => {
            if (!cancelled) controller.enqueue(new TextEncoder().encode('data: more\n\n'));
          };
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    cleanups.push(() => server.close());
    const controller = new AbortController();
    const response = await fetch(`${server.url}/`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    controller.abort();
    pull?.();
    for (let i = 0; i < 200 && !cancelled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      pull?.();
    }
    expect(cancelled).toBe(true);
  });

  it('is a plain (req, res) listener', () => {
    expect(toNodeListener(async () => new Response(null)).length).toBe(2);
  });
});
