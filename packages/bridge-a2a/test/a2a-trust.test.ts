/**
 * With a verifier on the client, a task is completed only by the agent the bridge fronts (or the
 * signers it names): an enrolled insider's reply, and a reply signed by one agent that speaks as
 * another, never complete streaming or blocking SendMessage or GetTask. Without a reply policy a
 * verified call fails instead of trusting any enrolled key. The bridge's own CancelTask counts
 * for GetTask: signed with its key, or unsigned at the position this instance appended it.
 */
import { AgdxClient, Agent, AgentTopic, HandlerConfigError, type AgentHandle } from '@agdx/agents';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { ConversationId, CorrelationId } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';

const text = new TextEncoder();
const STREAM = 'a2a-trust';
const keys = {
  worker: SigningKey.fromBytes(new Uint8Array(32).fill(61)),
  insider: SigningKey.fromBytes(new Uint8Array(32).fill(62)),
  gateway: SigningKey.fromBytes(new Uint8Array(32).fill(63)),
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup() {
  const registry = new KeyRegistry();
  registry.enroll('worker', keys.worker);
  registry.enroll('insider', keys.insider);
  registry.enroll('a2a-gateway', keys.gateway);
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry });
  await laser.bootstrap(1);
  // The worker's handler lets an insider answer first, as itself and posing as the worker; only
  // then does the worker answer, signed with its own key.
  const agent: AgentHandle = Agent.builder()
    .id('worker')
    .listenOn(AgentTopic.Commands)
    .respondOn(AgentTopic.Responses)
    .signingKey(keys.worker)
    .heartbeats(false)
    .handler(async (message, ctx) => {
      const envelope = message.envelope!;
      const correlation = envelope.correlation!;
      for (const as of ['insider', 'worker']) {
        await laser.agdx(AgentTopic.Responses, as, envelope.conversation).respond(correlation, text.encode(`forged by insider as ${as}`)).withTarget(envelope.source).signedBy(keys.insider).send();
      }
      await ctx.respond(text.encode('genuine answer'));
    })
    .spawn(laser);
  await agent.ready();
  cleanups.push(() => agent.shutdown());
  const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
  return { log, laser, bridge, registry };
}

function rpc(handler: (request: Request) => Promise<Response>, method: string, params: unknown, accept = 'application/json'): Promise<Response> {
  return handler(
    new Request('http://127.0.0.1/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
  );
}

const message = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } };

describe('A2A replies bound to the fronted agent', () => {
  it('blocking and streaming SendMessage and GetTask take only the fronted agent signed reply', async () => {
    const { bridge } = await setup();
    bridge.forAgent('worker');
    const handler = createA2aHttpHandler(bridge, { sendMessageWaitMs: 10_000, streamTimeoutMs: 10_000 });

    const blocking = (await (await rpc(handler, 'SendMessage', message)).json()) as { result: { task: { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } } };
    expect(blocking.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(blocking.result.task.artifacts[0]?.parts[0]?.text).toBe('genuine answer');

    const streamed = await (await rpc(handler, 'SendStreamingMessage', message, 'text/event-stream')).text();
    expect(streamed).toContain('genuine answer');
    expect(streamed).not.toContain('forged');

    const got = (await (await rpc(handler, 'GetTask', { id: blocking.result.task.id })).json()) as { result: { artifacts: { parts: { text: string }[] }[] } };
    expect(got.result.artifacts[0]?.parts[0]?.text).toBe('genuine answer');
  });

  it('without forAgent or withReplySigners a verified call fails instead of trusting any enrolled key', async () => {
    const { bridge } = await setup();
    const handler = createA2aHttpHandler(bridge, { sendMessageWaitMs: 10_000, streamTimeoutMs: 10_000 });
    const task = await bridge.submit(message);
    await expect(bridge.task(task.id)).rejects.toBeInstanceOf(HandlerConfigError);
    const blocking = (await (await rpc(handler, 'SendMessage', message)).json()) as { error?: { code: number } };
    expect(blocking.error?.code).toBe(-32000);
    const got = (await (await rpc(handler, 'GetTask', { id: task.id })).json()) as { error?: { code: number } };
    expect(got.error?.code).toBe(-32000);
    // An explicit policy that names the insider accepts the insider, and only as itself.
    bridge.withReplySigners(['insider']);
    await expect.poll(async () => (await bridge.task(task.id)).artifacts[0]?.text).toBe('forged by insider as insider');
  });

  it("GetTask finds the bridge's own unsigned cancel, but not one another appender wrote in its name", async () => {
    const { laser, bridge } = await setup();
    bridge.forAgent('nobody-answers');
    const forgedTask = ConversationId.new();
    // Anyone who can append can write an unsigned cancel that claims to come from the bridge.
    await laser
      .agdx(AgentTopic.Responses, 'a2a-gateway', forgedTask)
      .fail(CorrelationId.fromBytes(forgedTask.toBytes()), { code: 5, message: 'canceled by the A2A client', retryable: false })
      .withTaskState('Canceled')
      .send();
    expect((await bridge.task(forgedTask)).state).toEqual({ kind: 'known', name: 'Working' });

    const task = await bridge.submit(message);
    await bridge.cancel(task.id);
    expect((await bridge.task(task.id)).state).toEqual({ kind: 'known', name: 'Canceled' });
    // Another instance never saw that append, so it cannot tell it from a forgery.
    const other = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses).forAgent('nobody-answers');
    expect((await other.task(task.id)).state).toEqual({ kind: 'known', name: 'Working' });

    // Signed with the bridge's enrolled key, every instance trusts it.
    const signedTask = await bridge.submit(message);
    await bridge.withSigningKey(keys.gateway).cancel(signedTask.id);
    expect((await other.task(signedTask.id)).state).toEqual({ kind: 'known', name: 'Canceled' });
  });
});
