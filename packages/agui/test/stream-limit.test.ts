/**
 * Behind the node adapter a client holds at most `maxStreamsPerClient` event streams. The AG-UI
 * endpoint answers every run with a stream whatever the request's Accept header says, so it takes
 * its slot before any work: a run refused for too many streams has published nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentTopic } from '@agdx/agents';
import { toNodeListener } from '@agdx/bridge-kit/node';
import { ConversationId } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { newLog } from './support/scenario.js';

const servers: Server[] = [];
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const abort of aborts.splice(0)) abort.abort();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: (request: Request) => Promise<Response>, maxStreamsPerClient: number): Promise<string> {
  const server = createServer(toNodeListener(handler, { maxStreamsPerClient }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agui`;
}

/** Opens a GET follow stream of a quiet conversation and keeps it open until the test ends. */
async function follow(url: string, accept?: string): Promise<number> {
  const abort = new AbortController();
  aborts.push(abort);
  const response = await fetch(`${url}?threadId=${ConversationId.new().toString()}`, { headers: accept === undefined ? {} : { accept }, signal: abort.signal });
  if (response.status === 200) await response.body!.getReader().read();
  return response.status;
}

function run(url: string, conversation: ConversationId, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ threadId: conversation.toString(), runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hello' }], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
}

async function recordsOn(log: Awaited<ReturnType<typeof newLog>>['log'], topic: string): Promise<bigint> {
  const description = await log.describeTopic({ stream: 'demo', topic });
  return description.partitions.reduce((sum, p) => sum + p.nextOffset, 0n);
}

describe('the AG-UI endpoint behind the node adapter, at the per-client stream limit', () => {
  it('refuses a run without an event-stream Accept header with 429 before its command is published', async () => {
    const { log, bridge } = await newLog();
    const url = await listen(bridge.handler({ topic: AgentTopic.Commands, startRuns: { source: 'ui' } }), 1);
    // No Accept header: only the handler knows the answer will be a stream.
    expect(await follow(url)).toBe(200);
    const before = await recordsOn(log, AgentTopic.Commands);
    const refused = await run(url, ConversationId.new());
    expect(refused.status).toBe(429);
    expect(await recordsOn(log, AgentTopic.Commands)).toBe(before);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: { kind: 'rejected' } });
    // With the Accept header the adapter refuses it itself, also before the handler.
    const asked = await run(url, ConversationId.new(), { accept: 'text/event-stream' });
    expect(asked.status).toBe(429);
    await asked.body?.cancel();
    expect(await recordsOn(log, AgentTopic.Commands)).toBe(before);
  });

  it('gives the slot back when the answer is not a stream, and still starts a run within the limit', async () => {
    const { log, bridge } = await newLog();
    const url = await listen(bridge.handler({ topic: AgentTopic.Commands, startRuns: { source: 'ui' } }), 1);
    // Refused after it reserved the slot (its Last-Event-ID names two places where the
    // conversation has one): the answer is no stream, so the slot is free again.
    const bad = await fetch(`${url}?threadId=${ConversationId.new().toString()}`, { headers: { 'last-event-id': '0:5,1:3' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { kind: 'invalid' } });
    const before = await recordsOn(log, AgentTopic.Commands);
    const abort = new AbortController();
    aborts.push(abort);
    const started = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: ConversationId.new().toString(), runId: 'r2', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} }),
      signal: abort.signal,
    });
    expect(started.status).toBe(200);
    expect(started.headers.get('content-type')).toContain('text/event-stream');
    expect(await recordsOn(log, AgentTopic.Commands)).toBe(before + 1n);
    // That run holds the one slot: a follow stream is refused now.
    expect(await follow(url)).toBe(429);
  });
});
