import { ClientFactory } from '@a2a-js/sdk/client';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { AgentTopic } from '@agdx/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { echoWorker, eventually, memoryClient } from '@agdx/bridge-testing';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('the official A2A JS SDK client against the bridge over node:http', () => {
  it('discovers the card and runs SendMessage, GetTask and CancelTask', async () => {
    const { laser } = await memoryClient();
    const agent = await echoWorker(laser, AgentTopic.Commands, AgentTopic.Responses);
    cleanups.push(() => agent.shutdown());
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    // sendMessageWaitMs 0: seed 002's immediate answer, so the client polls GetTask.
    const server = await serve(createA2aHttpHandler(bridge, { sendMessageWaitMs: 0 }));
    cleanups.push(() => server.close());

    const client = await new ClientFactory().createFromUrl(`${server.url}/`);
    const sent = await client.sendMessage({
      message: { messageId: 'm1', role: 1, parts: [{ content: { $case: 'text', value: 'hello' } }] },
    } as never);
    const submitted = sent as { id: string; contextId: string; status?: { state: number } };
    expect(submitted.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(submitted.status?.state).toBe(1);

    const done = await eventually(async () => {
      const task = await client.getTask({ id: submitted.id } as never);
      return task.status?.state === 3 ? task : undefined;
    }, 5_000, 'the completed task');
    expect(done.id).toBe(submitted.id);
    const part = done.artifacts[0]?.parts[0]?.content;
    expect(part).toEqual({ $case: 'text', value: expect.stringContaining('handled: {"message":') });

    const canceled = await client.cancelTask({ id: submitted.id } as never);
    // The first terminal wins: the completed task stays completed, in CancelTask's answer and GetTask's.
    expect(canceled.status?.state).toBe(3);
    const after = await client.getTask({ id: submitted.id } as never);
    expect(after.status?.state).toBe(3);
  });
});
