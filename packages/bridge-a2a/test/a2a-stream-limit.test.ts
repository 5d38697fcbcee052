/**
 * Behind the node adapter a client holds at most `maxStreamsPerClient` event streams. A streamed
 * A2A call takes its slot before its task is submitted, so of two concurrent SendStreamingMessage
 * calls at the limit only one submits a task; the other is refused with 429 having started nothing.
 */
import { AgentTopic } from '@agdx/agents';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { toNodeListener } from '@agdx/bridge-a2a/node';
import { memoryClient, serveWith, STREAM } from '@agdx/bridge-testing';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const streamingCall = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'SendStreamingMessage', params: { message: { messageId: `m${id}`, role: 'ROLE_USER', parts: [{ text: 'hold' }] } } });

describe('streamed A2A calls at the per-client stream limit', () => {
  it('submits the task of only one of two concurrent SendStreamingMessage calls; the other gets 429', async () => {
    const { log, laser } = await memoryClient();
    // No worker answers: an accepted stream stays open.
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const a2a = createA2aHttpHandler(bridge);
    // Both calls are past the adapter's early check before either handler runs: only the
    // handler's own reservation can then keep the second from submitting.
    let arrived = 0;
    let bothIn: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    const handler = async (request: Request): Promise<Response> => {
      if (++arrived === 2) bothIn();
      await together;
      return a2a(request);
    };
    const server = await serveWith((h) => toNodeListener(h, { maxStreamsPerClient: 1 }))(handler);
    cleanups.push(() => server.close());
    const commands = async (): Promise<bigint> => (await log.describeTopic({ stream: STREAM, topic: AgentTopic.Commands })).partitions.reduce((sum, p) => sum + p.nextOffset, 0n);
    const before = await commands();
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const call = (id: number) =>
      fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: streamingCall(id), signal: abort.signal });
    const answers = await Promise.all([call(1), call(2)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: 'too many open streams' } });
    // The accepted stream's first frame (the submitted task) is out: its command is on the log.
    await answers.find((a) => a.status === 200)!.body!.getReader().read();
    expect(await commands()).toBe(before + 1n);
  });
});
