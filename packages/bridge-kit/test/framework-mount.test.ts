import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitBody } from '@agdx/bridge-kit';
import { createNodeServe, type FrameworkRequest } from '@agdx/bridge-kit/node';
import { afterEach, describe, expect, it } from 'vitest';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** What reached the handler. */
const echo = async (request: Request): Promise<Response> =>
  Response.json({ url: request.url, body: await request.text(), length: request.headers.get('content-length') });

async function readAll(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

/**
 * A server whose "framework" runs first: `parse` may read the body off the socket (as a body
 * parser does) and tells the adapter what it kept.
 */
async function start(options: Parameters<typeof createNodeServe>[1], parse?: (request: IncomingMessage) => Promise<FrameworkRequest>): Promise<string> {
  const serve = createNodeServe(echo, options);
  const server = createServer((request, response) => {
    void (async () => serve(request, response, parse === undefined ? undefined : await parse(request)))();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (url: string, body: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('createNodeServe with what a framework already knows', () => {
  it('passes a body the framework parsed, serialized again with its own length, and the original URL', async () => {
    const url = await start({}, async (request) => ({ originalUrl: `/mount${request.url}`, body: { parsed: JSON.parse(await readAll(request)) as unknown } }));
    const response = await post(`${url}/rpc?a=1`, '{ "x" : [1, 2] }');
    expect(await response.json()).toEqual({ url: `${url}/mount/rpc?a=1`, body: '{"x":[1,2]}', length: '11' });
  });

  it('passes the raw text a parser kept byte for byte', async () => {
    const url = await start({}, async (request) => ({ body: { raw: await readAll(request) } }));
    expect(await (await post(url, '{ "x" : 1 }')).json()).toMatchObject({ body: '{ "x" : 1 }' });
  });

  it('answers 413 when the parsed body is over the cap even though the parser accepted it', async () => {
    const url = await start({ maxBodyBytes: 16 }, async (request) => {
      const text = await readAll(request);
      return { body: { parsed: JSON.parse(text) as unknown } };
    });
    // Sent chunked, so no Content-Length lets the adapter refuse it before the parser ran.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ long: 'x'.repeat(64) })));
        controller.close();
      },
    });
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunked, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: 'request body too large' } });
  });

  it('answers 400 instead of waiting on a stream something drained without keeping the body', async () => {
    const url = await start({}, async (request) => {
      await readAll(request);
      return {};
    });
    const response = await post(url, '{"x":1}');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'invalid request' } });
  });

  it('reads an unread body itself even when the framework offers a parsed value (a placeholder such as {})', async () => {
    const url = await start({}, async () => ({ body: { parsed: {} } }));
    expect(await (await post(url, '{"real":true}')).json()).toMatchObject({ body: '{"real":true}' });
  });

  it('puts basePath in front of the path, and checks it', async () => {
    const url = await start({ basePath: '/behind/proxy/' });
    expect(await (await fetch(`${url}/x?q=1`)).json()).toMatchObject({ url: `${url}/behind/proxy/x?q=1` });
    expect(() => createNodeServe(echo, { basePath: 'no-slash' })).toThrow(RangeError);
  });
});

describe('limitBody', () => {
  const capped = limitBody(echo, 8);
  const request = (body: BodyInit | null, headers: Record<string, string> = {}) =>
    new Request('http://edge.test/x', { method: 'POST', headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);

  it('passes a body within the cap on, and a request without a body as it is', async () => {
    expect(await (await capped(request('12345678'))).json()).toMatchObject({ body: '12345678' });
    expect(await (await capped(new Request('http://edge.test/x'))).json()).toMatchObject({ body: '' });
  });

  it('answers 413 for a declared length over the cap and for a streamed body that passes it', async () => {
    const declared = await capped(request('0123456789', { 'content-length': '10' }));
    expect(declared.status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(4));
      },
    });
    // An endless body: cut off at the cap, not read to the end.
    const streamed = await capped(request(stream));
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ jsonrpc: '2.0', id: null });
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => limitBody(echo, 0)).toThrow(RangeError);
    expect(() => limitBody(echo, 1.5)).toThrow(RangeError);
  });
});
