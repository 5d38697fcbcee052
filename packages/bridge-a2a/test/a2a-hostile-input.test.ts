import { AgdxClient, AgentTopic, type AgdxTelemetry } from '@agdx/agents';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { countingTransport, memoryClient } from '@agdx/bridge-testing';
import { MemoryLog } from '@agdx/transport';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function rpc(url: string, body: unknown, signal?: AbortSignal): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  return (await response.json()) as never;
}

/** The 80-bit random tail of a task id. */
function tailOf(id: string): bigint {
  const bytes = ConversationId.tryParse(id)!.toBytes();
  return bytes.slice(6).reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

describe('A2A task ids', () => {
  it('cannot be derived from another task id minted in the same millisecond', async () => {
    const { laser } = await memoryClient();
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const server = await serve(createA2aHttpHandler(bridge));
    cleanups.push(() => server.close());
    // Every id minted from now on falls in one millisecond, as on a busy bridge: the process's
    // monotonic ids then differ by one.
    MintUlid.setSource({ nowMilliseconds: () => 1_790_000_000_000, fillRandom: (bytes) => crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>) });
    cleanups.push(async () => MintUlid.setSource(undefined));
    expect(tailOf(ConversationId.new().toString()) + 1n).toBe(tailOf(ConversationId.new().toString()));
    const send = { jsonrpc: '2.0', method: 'SendMessage', params: { message: { parts: [{ text: 'mine' }] }, configuration: { returnImmediately: true } } };
    const mine = (await rpc(`${server.url}/`, { ...send, id: 1 })).result?.['task'] as { id: string };
    const theirs = (await rpc(`${server.url}/`, { ...send, id: 2 })).result?.['task'] as { id: string };
    const distance = tailOf(mine.id) > tailOf(theirs.id) ? tailOf(mine.id) - tailOf(theirs.id) : tailOf(theirs.id) - tailOf(mine.id);
    // Fresh 80-bit tails lie this close with a chance of about 2^-47.
    expect(distance > 1n << 32n).toBe(true);
  });
});

describe('A2A telemetry of hostile method names', () => {
  it("reports a method the bridge does not serve as _OTHER, never the client's text", async () => {
    const methods: string[] = [];
    const telemetry = { onServe: (event: { method: string }) => (methods.push(event.method), { run: <T>(work: () => Promise<T>) => work(), end: () => undefined }) } as unknown as AgdxTelemetry;
    const { laser } = await memoryClient();
    laser.instrument(telemetry);
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const server = await serve(createA2aHttpHandler(bridge));
    cleanups.push(() => server.close());
    const unknown = await rpc(`${server.url}/`, { jsonrpc: '2.0', id: 1, method: `x${'y'.repeat(500_000)}` });
    expect(unknown.error?.message).toBe('unsupported operation');
    await rpc(`${server.url}/`, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } });
    expect(methods).toEqual(['_OTHER', 'GetTask']);
  });
});

describe('A2A calls of a client that went away', () => {
  it('handleRpc stops reading the reply topic for an aborted GetTask instead of scanning it for nobody', async () => {
    const counting = countingTransport(new MemoryLog());
    const laser = AgdxClient.from(counting.transport, { stream: 'bridge-test' });
    await laser.bootstrap(1);
    // Replies of other tasks: a GetTask reads every one of them on the task's partition.
    for (let i = 0; i < 50; i++) {
      const other = ConversationId.new();
      await laser.agdx(AgentTopic.Responses, 'worker', other).respond(CorrelationId.fromBytes(other.toBytes()), new TextEncoder().encode('other')).send();
    }
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const getTask = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: ConversationId.new().toString() } };
    counting.reset();
    expect(await bridge.handleRpc(getTask, { signal: AbortSignal.abort() })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'internal error' } });
    expect(counting.records()).toBe(0);
    expect(await bridge.handleRpc(getTask)).toMatchObject({ result: { status: { state: 'TASK_STATE_WORKING' } } });
    expect(counting.records()).toBeGreaterThanOrEqual(50);
  });
});
