/**
 * The demo's HTTP server on keep-alive connections: a client that sends many requests over one
 * socket (as the MCP and A2A SDKs do through fetch) must not pile listeners onto that socket.
 * An earlier server added a `close` listener to the socket per request, so Node printed
 * MaxListenersExceededWarning after one MCP client's first dozen calls.
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoServer } from '../src/demo/demo-server.js';
import type { LoopbackServer } from '../src/http-server.js';

const REQUESTS = 30;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly socketPort: number | undefined;
}

/** One request on `agent`; resolves with the answer and the local port of the socket it used. */
function send(agent: Agent, url: string, method: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), socketPort: req.socket?.localPort }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('demo server on keep-alive connections', () => {
  let server: LoopbackServer | undefined;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning);
  };

  afterEach(async () => {
    process.off('warning', onWarning);
    await server?.close();
    server = undefined;
    warnings.length = 0;
  });

  it(`serves ${REQUESTS} requests on one socket without a listener-leak warning`, async () => {
    process.on('warning', onWarning);
    const echo = async (request: Request): Promise<Response> =>
      Response.json({ path: new URL(request.url).pathname, body: request.method === 'POST' ? await request.text() : null, aborted: request.signal.aborted });
    server = await startDemoServer({ a2a: echo, mcp: echo, agui: echo });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ports = new Set<number | undefined>();
      for (let i = 0; i < REQUESTS; i += 1) {
        const route = i % 3 === 0 ? '/mcp' : i % 3 === 1 ? '/a2a/' : '/agui';
        const answer = await send(agent, `${server.url}${route}`, route === '/agui' ? 'GET' : 'POST', route === '/agui' ? undefined : `{"n":${i}}`);
        expect(answer.status).toBe(200);
        const parsed = JSON.parse(answer.body) as { path: string; body: string | null; aborted: boolean };
        expect(parsed.aborted).toBe(false);
        if (route !== '/agui') expect(parsed.body).toBe(`{"n":${i}}`);
        ports.add(answer.socketPort);
      }
      // One socket carried every request, so a per-request socket listener would have passed
      // Node's default ceiling of 10 three times over.
      expect(ports.size).toBe(1);
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      agent.destroy();
    }
  });
});
