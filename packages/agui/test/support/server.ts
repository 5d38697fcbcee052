import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** The example page folder (examples/agui-live at the repository root). */
export const EXAMPLE_DIR: URL = new URL('../../../../examples/agui-live/', import.meta.url);

const STATIC: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
};
const TYPES: Readonly<Record<string, string>> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8' };

/** A node:http server on 127.0.0.1 (ephemeral port) serving `/agui` and the example page. */
export async function startServer(
  handler: (request: Request) => Promise<Response>,
): Promise<{ url: string; close: () => Promise<void>; dropConnections: () => void }> {
  const fetch = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path === '/agui') return handler(request);
    const file = STATIC[path];
    if (file === undefined) return new Response('not found', { status: 404 });
    const body = await readFile(new URL(file, EXAMPLE_DIR));
    return new Response(body, { headers: { 'content-type': TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream' } });
  };
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((resolve) => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => resolve({ server: s, port: info.port }));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    dropConnections: () => (server as unknown as { closeAllConnections: () => void }).closeAllConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** One parsed SSE block. */
export interface SseBlock {
  readonly id: string | undefined;
  readonly data: string | undefined;
  readonly comment: string | undefined;
}

/** Reads SSE blocks from a fetch response body as they arrive. */
export async function* sseBlocks(response: Response): AsyncGenerator<SseBlock> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let data: string | undefined;
      let comment: string | undefined;
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data = line.slice(6);
        else if (line.startsWith(': ')) comment = line.slice(2);
      }
      yield { id, data, comment };
    }
  }
}

/** Sleeps. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A POST run (an AG-UI RunAgentInput) on `conversation`, resuming after `lastEventId` when given. */
export function runRequest(conversation: { toString(): string }, runId: string, lastEventId?: string): Request {
  return new Request('http://h/agui', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
    body: JSON.stringify({ threadId: conversation.toString(), runId, messages: [], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
}

/** Every event of a response that ends by itself, with the last SSE id seen. */
export async function wholeRun(response: Response): Promise<{ events: { readonly type: string }[]; lastId: string | undefined }> {
  const events: { readonly type: string }[] = [];
  let lastId: string | undefined;
  for await (const block of sseBlocks(response)) {
    if (block.data !== undefined) events.push(JSON.parse(block.data) as { readonly type: string });
    lastId = block.id ?? lastId;
  }
  return { events, lastId };
}
