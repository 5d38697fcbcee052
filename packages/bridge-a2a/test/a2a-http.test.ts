import { ClientFactory } from '@a2a-js/sdk/client';
import { AgentTopic, agentMessageBody, readAgentMessage } from '@agdx/agents';
import { A2aBridge, createA2aHttpHandler, PublicErrorMessage, taskToJson, verifyCard } from '@agdx/bridge-a2a';
import { SigningKey } from '@agdx/sign';
import { AgdxError, ConversationId, CorrelationId, readBridgeHops, TaskState } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { echoWorker, eventually, memoryClient, serveHono, STREAM, text, worker } from '@agdx/bridge-testing';
import { serve } from './support/serve.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function echoSetup() {
  const { log, laser } = await memoryClient();
  const agent = await echoWorker(laser, AgentTopic.Commands, AgentTopic.Responses);
  cleanups.push(() => agent.shutdown());
  const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
  return { log, laser, bridge };
}

const publicMessages = new Set<string>(Object.values(PublicErrorMessage));

async function post(url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const raw = await response.text();
  return { status: response.status, json: raw.length > 0 ? (JSON.parse(raw) as unknown) : undefined, headers: response.headers };
}

describe('A2A over Hono', () => {
  it('serves the card and JSON-RPC to the official client when mounted with app.all', async () => {
    const { bridge } = await echoSetup();
    const server = await serveHono(createA2aHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await new ClientFactory().createFromUrl(`${server.url}/`);
    const sent = (await client.sendMessage({ message: { messageId: 'h1', role: 1, parts: [{ content: { $case: 'text', value: 'via hono' } }] } } as never)) as { id: string };
    const done = await eventually(async () => {
      const task = await client.getTask({ id: sent.id } as never);
      return task.status?.state === 3 ? task : undefined;
    });
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: expect.stringContaining('via hono') });
    const streamed: string[] = [];
    for await (const event of client.sendMessageStream({ message: { messageId: 'h2', role: 1, parts: [{ content: { $case: 'text', value: 'hono stream' } }] } } as never)) {
      streamed.push((event as { payload: { $case: string } }).payload.$case);
    }
    expect(streamed).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
  });
});

describe('SendStreamingMessage', () => {
  it('streams the task, its artifact and the terminal status to the official client', async () => {
    const { bridge } = await echoSetup();
    const server = await serve(createA2aHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await new ClientFactory().createFromUrl(`${server.url}/`);
    const events: unknown[] = [];
    for await (const event of client.sendMessageStream({ message: { messageId: 's1', role: 1, parts: [{ content: { $case: 'text', value: 'stream me' } }] } } as never)) {
      events.push(event);
    }
    const payloads = events.map((e) => (e as { payload: { $case: string; value: Record<string, unknown> } }).payload);
    expect(payloads.map((p) => p.$case)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    expect((payloads[0]!.value['status'] as { state: number }).state).toBe(1);
    expect(JSON.stringify(payloads[1]!.value)).toContain('stream me');
    expect((payloads[2]!.value['status'] as { state: number }).state).toBe(3);
    expect(payloads[2]!.value['taskId']).toBe(payloads[0]!.value['id']);
  });

  it('survives a streaming client going away mid-stream (no late enqueue, no unhandled error)', async () => {
    const { laser } = await memoryClient();
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const server = await serve(createA2aHttpHandler(bridge, { streamTimeoutMs: 60_000 }));
    cleanups.push(() => server.close());
    const controller = new AbortController();
    const response = await fetch(`${server.url}/`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { parts: [{ text: 'never answered' }] } } }),
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('TASK_STATE_SUBMITTED');
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Closing the client rejects any wait still pending; with the stream cancelled none is left
    // to enqueue into a closed stream (vitest fails the run on an unhandled error).
    await laser.close();
    const still = await createA2aHttpHandler(bridge)(new Request('http://h/.well-known/agent-card.json'));
    expect(still.status).toBe(200);
  });

  it('ends the stream with an error event when no reply comes in time', async () => {
    const { laser } = await memoryClient();
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const handler = createA2aHttpHandler(bridge, { streamTimeoutMs: 50 });
    const response = await handler(
      new Request('http://127.0.0.1/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'SendStreamingMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter((f) => f.length > 0).map((f) => JSON.parse(f.replace(/^data: /, '')) as Record<string, unknown>);
    expect(frames.length).toBe(2);
    expect((frames[0]!['result'] as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(frames[1]).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32000, message: 'internal error' } });
  });
});

describe('SendMessage that blocks (the A2A default, bounded by sendMessageWaitMs)', () => {
  it('waits by default, answers at once for blocking: false, and every client sees one status', async () => {
    const { bridge } = await echoSetup();
    const server = await serve(createA2aHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await new ClientFactory().createFromUrl(`${server.url}/`);
    // No option and no configuration: the official client's blocking default gets the settled task.
    const done = (await client.sendMessage({ message: { messageId: 'b1', role: 1, parts: [{ content: { $case: 'text', value: 'block' } }] } } as never)) as {
      id: string;
      status?: { state: number };
      artifacts: unknown[];
    };
    expect(done.status?.state).toBe(3);
    expect(done.artifacts.length).toBe(1);
    const post = async (body: unknown): Promise<Record<string, unknown>> =>
      (await (await fetch(`${server.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
    // A2A 0.3 spelling of an immediate answer.
    const quick = await post({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { parts: [{ kind: 'text', text: 'q' }] }, configuration: { blocking: false } } });
    expect((quick['result'] as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_SUBMITTED');
    // Cancel after completion: the first terminal wins, in CancelTask's own answer too.
    const canceled = await client.cancelTask({ id: done.id } as never);
    expect(canceled.status?.state).toBe(3);
    expect((await client.getTask({ id: done.id } as never)).status?.state).toBe(3);
  });

  it('names the refused field of malformed params in the error data', async () => {
    const { bridge } = await echoSetup();
    const handler = createA2aHttpHandler(bridge);
    const answer = async (params: unknown): Promise<Record<string, unknown>> =>
      (await (
        await handler(new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params }) }))
      ).json()) as Record<string, unknown>;
    expect(await answer({ message: { parts: 'hello' } })).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: 'invalid request', data: { field: 'message.parts', reason: expect.any(String) } },
    });
    expect(((await answer({ message: { parts: [] }, configuration: { blocking: 'no' } }))['error'] as { data: unknown }).data).toMatchObject({ field: 'configuration.blocking' });
  });

  it('serves a card given as a value (not only as a function)', async () => {
    const { bridge } = await echoSetup();
    const signed = await bridge.signedCard(SigningKey.generate());
    const handler = createA2aHttpHandler(bridge, { card: signed });
    const response = await handler(new Request('http://h/.well-known/agent-card.json'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(signed)));
    expect(() => createA2aHttpHandler(bridge, { sendMessageWaitMs: -1 })).toThrow('sendMessageWaitMs');
  });

  it('answers the completed task to the official client, and the submitted one when asked to return at once', async () => {
    const { bridge } = await echoSetup();
    const server = await serve(createA2aHttpHandler(bridge, { sendMessageWaitMs: 5_000 }));
    cleanups.push(() => server.close());
    const client = await new ClientFactory().createFromUrl(`${server.url}/`);
    const done = (await client.sendMessage({ message: { messageId: 'w1', role: 1, parts: [{ content: { $case: 'text', value: 'wait for me' } }] } } as never)) as {
      status?: { state: number };
      artifacts: { parts: { content: unknown }[] }[];
    };
    expect(done.status?.state).toBe(3);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: expect.stringContaining('wait for me') });
    const quick = (await client.sendMessage({
      message: { messageId: 'w2', role: 1, parts: [{ content: { $case: 'text', value: 'now' } }] },
      configuration: { returnImmediately: true, acceptedOutputModes: [] },
    } as never)) as { status?: { state: number } };
    expect(quick.status?.state).toBe(1);
  });

  it('answers the current state (as GetTask reads it) when no reply comes in time', async () => {
    const { laser } = await memoryClient();
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const handler = createA2aHttpHandler(bridge, { sendMessageWaitMs: 30 });
    const response = await handler(
      new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'SendMessage', params: { message: { parts: [] } } }) }),
    );
    expect(((await response.json()) as { result: { task: { status: { state: string } } } }).result.task.status.state).toBe('TASK_STATE_WORKING');
  });
});

describe('Agent Card', () => {
  it('a signed card verifies and a tampered one fails', async () => {
    const { bridge } = await echoSetup();
    bridge.withCapabilities([{ skillId: 'summarize', input: { kind: 'contentType', contentType: 1 } }]);
    const key = SigningKey.generate();
    const signed = await bridge.signedCard(key);
    const [signature] = signed.signatures;
    await verifyCard(signed, signature!, key.verifyingKey);
    await expect(verifyCard({ ...signed, name: 'impostor' }, signature!, key.verifyingKey)).rejects.toThrow('card signature does not verify');
    await expect(verifyCard({ ...signed, skills: [] }, signature!, key.verifyingKey)).rejects.toThrow('card signature does not verify');
  });

  it('serves the card at .well-known with an absolute interface URL, and a signed card when asked', async () => {
    const { bridge } = await echoSetup();
    const key = SigningKey.generate();
    const plain = await serve(createA2aHttpHandler(bridge));
    cleanups.push(() => plain.close());
    const card = (await (await fetch(`${plain.url}/agents/a1/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces[0]!.url).toBe(`${plain.url}/agents/a1/`);
    const signedCard = await bridge.signedCard(key, { ...bridge.card(), supportedInterfaces: [{ url: 'https://agents.example/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    const signedServer = await serve(createA2aHttpHandler(bridge, { card: () => signedCard }));
    cleanups.push(() => signedServer.close());
    const served = (await (await fetch(`${signedServer.url}/.well-known/agent-card.json`)).json()) as typeof signedCard;
    await verifyCard(served, served.signatures[0]!, key.verifyingKey);
  });
});

describe('loop guard', () => {
  it('refuses a loop through two bridges before anything is published', async () => {
    const { log, laser } = await memoryClient();
    const first = new A2aBridge(laser, 'edge-a', AgentTopic.Commands, AgentTopic.Responses);
    const second = new A2aBridge(laser, 'edge-b', AgentTopic.Commands, AgentTopic.Responses).withBridgeHops(first.bridgeHops);
    expect(second.bridgeHops).toEqual(['edge-a', 'edge-b']);
    expect(() => first.withBridgeHops(second.bridgeHops)).toThrow('bridge loop detected at `edge-a`');
    const answer = await second.handleRpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { parts: [] } } });
    const id = (answer as { result: { task: { id: string } } }).result.task.id;
    const records = await log.read({ stream: STREAM, topic: AgentTopic.Commands, partition: 0, offset: 0n, maxCount: 100 });
    const more = await log.read({ stream: STREAM, topic: AgentTopic.Commands, partition: 1, offset: 0n, maxCount: 100 });
    const envelopes = [...records, ...more].map((r) => readAgentMessage(r, { stream: STREAM, topic: AgentTopic.Commands }).envelope!);
    expect(envelopes.length).toBe(1);
    expect(envelopes[0]!.conversation.toString()).toBe(id);
    expect(readBridgeHops(envelopes[0]!.metadata)).toEqual(['edge-a', 'edge-b']);
  });
});

describe('child sessions and targets', () => {
  it('submitIn writes a submitted start with parent and root before the command', async () => {
    const { log, laser } = await memoryClient(1);
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Sessions, AgentTopic.Sessions);
    const parent = ConversationId.new();
    const root = ConversationId.new();
    const task = await bridge.submitIn(parent, root, '{"message":{"role":"user","parts":[{"kind":"text","text":"summarize"}]}}', { target: 'assistant' });
    const envelopes = (await log.read({ stream: STREAM, topic: AgentTopic.Sessions, partition: 0, offset: 0n, maxCount: 100 })).map(
      (r) => readAgentMessage(r, { stream: STREAM, topic: AgentTopic.Sessions }).envelope!,
    );
    expect(envelopes.map((e) => e.kind)).toEqual(['status', 'command']);
    const [start, command] = envelopes as [typeof envelopes[0], typeof envelopes[0]];
    expect(start.operation).toBe('session');
    expect(start.taskState).toBe(TaskState.Submitted);
    expect(start.conversation.toString()).toBe(task.id);
    expect(start.parent?.equals(parent) && start.root?.equals(root)).toBe(true);
    expect(readBridgeHops(start.metadata)).toEqual([]);
    expect(start.signature).toBeUndefined();
    expect(command.parent?.equals(parent) && command.root?.equals(root)).toBe(true);
    expect(command.target?.value).toBe('assistant');
    expect(new TextDecoder().decode(command.body)).toBe('{"message":{"role":"user","parts":[{"kind":"text","text":"summarize"}]}}');
  });

  it('submitTo addresses one worker; only it answers', async () => {
    const { laser } = await memoryClient();
    const named = await worker(laser, AgentTopic.Commands, AgentTopic.Responses, (m, ctx) => ctx.respond(text.encode(`named: ${new TextDecoder().decode(agentMessageBody(m))}`)), 'assistant');
    cleanups.push(() => named.shutdown());
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const task = await bridge.submitTo('assistant', { message: { parts: [{ text: 'hi' }] } });
    const done = await eventually(async () => {
      const t = await bridge.task(task.id);
      return t.state.kind === 'known' && t.state.name === 'Completed' ? t : undefined;
    });
    expect(done.artifacts[0]?.text).toBe('named: {"message":{"parts":[{"text":"hi"}]}}');
  });

  it('GetTask returns the first terminal reply, else the latest non-terminal one', async () => {
    const { laser } = await memoryClient(1);
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const task = await bridge.submit({ message: { parts: [] } });
    const conversation = ConversationId.parse(task.id);
    const correlation = CorrelationId.fromBytes(conversation.toBytes());
    const reply = (body: string, state: 'InputRequired' | 'Completed' | 'Failed') =>
      laser.agdx(AgentTopic.Responses, 'worker', conversation).respond(correlation, text.encode(body)).withTaskState(state).send();
    await reply('which file?', 'InputRequired');
    expect(taskToJson(await bridge.task(task.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await reply('done', 'Completed');
    await reply('late', 'Failed');
    const done = await bridge.task(task.id);
    expect(taskToJson(done).status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts).toEqual([{ text: 'done' }]);
  });

  it('GetTask finds its reply behind many replies of other sessions, and ignores a same-correlation reply in another session', async () => {
    const { laser } = await memoryClient(2);
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const task = await bridge.submit({ message: { parts: [] } });
    const conversation = ConversationId.parse(task.id);
    const correlation = CorrelationId.fromBytes(conversation.toBytes());
    for (let i = 0; i < 300; i++) {
      const other = ConversationId.new();
      await laser.agdx(AgentTopic.Responses, 'worker', other).respond(CorrelationId.fromBytes(other.toBytes()), text.encode('noise')).send();
    }
    await laser.agdx(AgentTopic.Responses, 'worker', ConversationId.new()).respond(correlation, text.encode('wrong session')).withTaskState('Failed').send();
    expect(taskToJson(await bridge.task(task.id)).status.state).toBe('TASK_STATE_WORKING');
    await laser.agdx(AgentTopic.Responses, 'worker', conversation).respond(correlation, text.encode('mine')).send();
    const done = await bridge.task(task.id);
    expect(taskToJson(done).status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts).toEqual([{ text: 'mine' }]);
  });

  it('cancel publishes a signed Canceled error when a signing key is set; unknown tasks read Working', async () => {
    const { log, laser } = await memoryClient(1);
    const key = SigningKey.generate();
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses).withSigningKey(key);
    const id = ConversationId.new().toString();
    expect((await bridge.task(id)).state).toEqual({ kind: 'known', name: 'Working' });
    expect((await bridge.cancel(id)).state).toEqual({ kind: 'known', name: 'Canceled' });
    expect((await bridge.task(id)).state).toEqual({ kind: 'known', name: 'Canceled' });
    const [record] = await log.read({ stream: STREAM, topic: AgentTopic.Responses, partition: 0, offset: 0n, maxCount: 10 });
    const envelope = readAgentMessage(record!, { stream: STREAM, topic: AgentTopic.Responses }).envelope!;
    expect(envelope.kind).toBe('error');
    expect(envelope.signature?.keyId).toEqual(key.keyId);
    await expect(bridge.task('not-a-ulid')).rejects.toThrow('task id must be');
  });
});

describe('authorization hook', () => {
  it('answers 401 without a challenge for no claims or a wrong audience, 403 with the step-up challenge for a missing scope', async () => {
    const { bridge } = await echoSetup();
    const claims = new Map<string, { audience: string[]; scopes: string[] }>([
      ['good', { audience: ['agents.example'], scopes: ['a2a:call'] }],
      ['wrong-audience', { audience: ['other.example'], scopes: ['a2a:call'] }],
      ['no-scope', { audience: ['agents.example'], scopes: ['a2a:read'] }],
    ]);
    const handler = createA2aHttpHandler(bridge, {
      authorize: { claims: (r) => claims.get(r.headers.get('x-token') ?? ''), audience: 'agents.example', scope: (method) => (method === 'GetTask' ? 'a2a:read' : 'a2a:call') },
    });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { parts: [] } } });
    const call = (token?: string) =>
      handler(new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { 'x-token': token } : {}) }, body }));
    const none = await call();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBeNull();
    const wrong = await call('wrong-audience');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBeNull();
    // Refused from the headers, before the body (and so its id) was read: JSON-RPC's id null.
    expect(await wrong.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'unauthenticated' } });
    const stepUp = await call('no-scope');
    expect(stepUp.status).toBe(403);
    expect(stepUp.headers.get('www-authenticate')).toBe('Bearer scope="a2a:call"');
    expect(await stepUp.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'step-up authorization required' } });
    expect((await call('good')).status).toBe(200);
  });

  it('refuses an unauthenticated caller without reading its body', async () => {
    const { bridge } = await echoSetup();
    const handler = createA2aHttpHandler(bridge, { authorize: { claims: () => undefined, audience: 'agents.example', scope: 'a2a:call' } });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const response = await handler(new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(401);
    // A ReadableStream pulls once to fill its queue; the handler itself never read from it.
    expect(pulled).toBeLessThanOrEqual(1);
  });
});

describe('hostile input', () => {
  it('answers 1,000 malformed requests with well-formed errors and keeps serving', async () => {
    const { bridge } = await echoSetup();
    const server = await serve(createA2aHttpHandler(bridge, { maxBodyBytes: 4096 }));
    cleanups.push(() => server.close());
    const bodies: (() => { body: string; type?: string })[] = [
      () => ({ body: '{"jsonrpc":"2.0","id":1,"method":' }),
      () => ({ body: 'not json at all' }),
      () => ({ body: '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]' }),
      () => ({ body: 'null' }),
      () => ({ body: '42' }),
      () => ({ body: '{"jsonrpc":"1.0","id":1,"method":"GetTask"}' }),
      () => ({ body: '{"jsonrpc":"2.0","id":{"x":1},"method":"GetTask"}' }),
      () => ({ body: '{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":5}}' }),
      () => ({ body: '{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"not-a-ulid"}}' }),
      () => ({ body: '{"jsonrpc":"2.0","id":4,"method":"CancelTask","params":[]}' }),
      () => ({ body: '{"jsonrpc":"2.0","id":5,"method":"ListTasks"}' }),
      () => ({ body: '{"jsonrpc":"2.0","id":6,"method":7}' }),
      () => ({ body: 'x'.repeat(5000) }),
      () => ({ body: '{"a":1}', type: 'text/plain' }),
      () => ({ body: '\u00ff\u00fe{}' }),
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const one = async (): Promise<void> => {
      const pick = bodies[random() % bodies.length]!();
      const bytes = pick.body.startsWith('\u00ff') ? new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]) : pick.body;
      const response = await fetch(`${server.url}/`, { method: 'POST', headers: { 'content-type': pick.type ?? 'application/json' }, body: bytes });
      expect(response.status).toBeGreaterThanOrEqual(200);
      expect(response.status).toBeLessThan(500);
      const json = (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
      expect(json.jsonrpc).toBe('2.0');
      expect(json.error.code).toBe(-32000);
      expect(publicMessages.has(json.error.message)).toBe(true);
    };
    // 1,000 requests, 20 in flight at a time.
    for (let batch = 0; batch < 50; batch++) await Promise.all(Array.from({ length: 20 }, one));
    const ok = await post(`${server.url}/`, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: { parts: [] } } }));
    expect(ok.status).toBe(200);
    // Still serving: a blocking SendMessage gets the worker's answer.
    expect((ok.json as { result: { task: { status: { state: string } } } }).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  }, 120_000);

  it('refuses bad arguments with InvalidError, never an untyped throw', async () => {
    const { laser } = await memoryClient(1);
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const misuses: (() => unknown)[] = [
      () => bridge.withCapabilities(5 as never),
      () => bridge.withCapabilities([{}] as never),
      () => bridge.withBridgeHops(5 as never),
      () => bridge.withBridgeHops([''] as never),
      () => new A2aBridge(laser, '', AgentTopic.Commands, AgentTopic.Responses),
      () => new A2aBridge(laser, 'x', '', AgentTopic.Responses),
    ];
    for (const misuse of misuses) {
      let error: unknown;
      try {
        misuse();
      } catch (e) {
        error = e;
      }
      expect(AgdxError.is(error, 'invalid'), String(misuse)).toBe(true);
    }
    for (const params of [undefined, () => 1, 'not json', new Uint8Array([0xff])]) {
      await expect(bridge.submit(params)).rejects.toSatisfy((e: unknown) => AgdxError.is(e, 'invalid'));
    }
    for (const id of [5, 'nope', undefined]) {
      await expect(bridge.task(id as never)).rejects.toSatisfy((e: unknown) => AgdxError.is(e, 'invalid'));
      await expect(bridge.cancel(id as never)).rejects.toSatisfy((e: unknown) => AgdxError.is(e, 'invalid'));
    }
  });

  it('handleRpc never throws, even for hostile objects', async () => {
    const { bridge } = await echoSetup();
    const hostile = [
      new Proxy({}, { get: () => { throw new Error('boom'); }, has: () => { throw new Error('boom'); } }),
      { jsonrpc: '2.0', get id(): never { throw new Error('boom'); }, method: 'GetTask' },
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { big: 10n } },
      undefined,
      Symbol('x'),
    ];
    for (const request of hostile) {
      const answer = (await bridge.handleRpc(request)) as { error?: { code: number; message: string } };
      expect(answer.error?.code).toBe(-32000);
      expect(publicMessages.has(answer.error!.message)).toBe(true);
    }
  });

  it('answers a non-JSON body with 4xx before the bridge runs, and GET on the endpoint with 405', async () => {
    const { log, bridge } = await echoSetup();
    const handler = createA2aHttpHandler(bridge);
    const bad = await handler(new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage"' }));
    expect(bad.status).toBe(400);
    const get = await handler(new Request('http://h/'));
    expect(get.status).toBe(405);
    const described = await log.describeTopic({ stream: STREAM, topic: AgentTopic.Commands });
    expect(described.partitions.every((p) => p.nextOffset === 0n)).toBe(true);
  });
});

describe('SubscribeToTask (the official client’s resubscribeTask)', () => {
  it('follows a task in flight to its final status, and answers an ended task with the task alone', async () => {
    const { laser } = await memoryClient();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const agent = await worker(laser, AgentTopic.Commands, AgentTopic.Responses, async (_message, ctx) => {
      await gate;
      await ctx.respond(text.encode('late answer'));
    });
    cleanups.push(() => agent.shutdown());
    cleanups.push(async () => release());
    const bridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses);
    const server = await serve(createA2aHttpHandler(bridge));
    cleanups.push(() => server.close());
    const client = await new ClientFactory().createFromUrl(`${server.url}/`);
    // The client wraps each stream event as {payload: {$case, value}}.
    const valueOf = (event: unknown): unknown => (event as { payload: { value: unknown } }).payload.value;
    const submitted = (await client.sendMessage({
      message: { messageId: 'r1', role: 1, parts: [{ content: { $case: 'text', value: 'take your time' } }] },
      configuration: { returnImmediately: true, acceptedOutputModes: [] },
    } as never)) as { id: string };
    const events: unknown[] = [];
    const following = (async () => {
      for await (const event of client.resubscribeTask({ id: submitted.id } as never)) events.push(event);
    })();
    await eventually(async () => (events.length > 0 ? true : undefined), 5_000, 'the first frame');
    expect(valueOf(events[0])).toMatchObject({ id: submitted.id, status: { state: 2 } });
    release();
    await following;
    expect(JSON.stringify(events)).toContain('late answer');
    expect(valueOf(events.at(-1))).toMatchObject({ taskId: submitted.id, status: { state: 3 } });

    const again: unknown[] = [];
    for await (const event of client.resubscribeTask({ id: submitted.id } as never)) again.push(event);
    expect(again).toHaveLength(1);
    expect(valueOf(again[0])).toMatchObject({ id: submitted.id, status: { state: 3 } });
  });
});
