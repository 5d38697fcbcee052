/**
 * The stream-layout scenarios (issue 16): the same user journeys under each of the four layouts
 * and a custom session layout, on any log. A {@link LayoutEnvFactory} opens a fresh stream with
 * a layout; the bodies use only public APIs, so the MemoryLog test and the dev-server tests (VSR
 * and classic) run the very same code. Record counts stay small: the suite checks where records
 * live and that every reader finds them, not speed.
 */
import { AgdxClient, Agent, AgentTopic, agentMessageBody, type AgentHandle, type AgentMessage, type AgentCtx, type StreamLayout } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { A2aBridge } from '@agdx/bridge-a2a';
import { McpBridge } from '@agdx/bridge-mcp';
import { SessionConfig, sessions, sessionTurnText } from '@agdx/sessions';
import type { LogTransport } from '@agdx/transport';
import { AgentId, ContentType, ConversationId, CorrelationId, MintUlid, TaskState } from '@agdx/wire';
import { expect } from 'vitest';

const text = new TextEncoder();
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** The agents the layouts declare. */
export const assistant: AgentId = AgentId.new('assistant');
export const gateway: AgentId = AgentId.new('gateway');
export const a2aId: AgentId = AgentId.new('a2a-bridge');
export const mcpId: AgentId = AgentId.new('mcp-bridge');

/** Partitions of every topic (a single-partition layout bootstraps one). */
export const PARTITIONS = 4;

/** The four layouts, each declaring the assistant, the requester and both bridges. */
export const LAYOUTS: readonly (readonly [string, StreamLayout])[] = [
  ['shared', { kind: 'shared' }],
  [
    'perAgentTopic',
    {
      kind: 'perAgentTopic',
      topics: new Map([
        [assistant.value, 'agent.assistant'],
        [gateway.value, 'agent.gateway'],
        [a2aId.value, 'agent.a2a'],
        [mcpId.value, 'agent.mcp'],
      ]),
    },
  ],
  [
    'perAgentPartition',
    {
      kind: 'perAgentPartition',
      partitions: new Map([
        [assistant.value, 1],
        [gateway.value, 2],
        [a2aId.value, 3],
        [mcpId.value, 0],
      ]),
    },
  ],
  ['singlePartition', { kind: 'singlePartition' }],
];

/** A fresh stream bootstrapped for one layout, and clients on it. */
export interface LayoutEnv {
  /** The stream (the clients' default). */
  readonly stream: string;
  /** A client with the layout. */
  readonly laser: AgdxClient;
  /** Another client with the layout on a connection of its own (another process). */
  connect(): Promise<AgdxClient>;
  /** Closes every client and connection. */
  close(): Promise<void>;
}

/** Opens a {@link LayoutEnv} for `layout`. */
export type LayoutEnvFactory = (layout: StreamLayout) => Promise<LayoutEnv>;

/** Builds a {@link LayoutEnvFactory} from a way to open connections and to name a fresh stream. */
export function layoutEnvs(openConnection: () => Promise<LogTransport>, freshStream: () => string): LayoutEnvFactory {
  return async (layout) => {
    const stream = freshStream();
    const transports: LogTransport[] = [];
    const clients: AgdxClient[] = [];
    const client = async (): Promise<AgdxClient> => {
      const transport = await openConnection();
      transports.push(transport);
      const c = AgdxClient.from(transport, { stream, layout });
      clients.push(c);
      return c;
    };
    const close = async (): Promise<void> => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await Promise.allSettled(transports.map((t) => t.close()));
    };
    try {
      const laser = await client();
      await laser.bootstrap(PARTITIONS);
      return { stream, laser, connect: client, close };
    } catch (error) {
      await close();
      throw error;
    }
  };
}

/**
 * The assistant: answers a `chat` command with `handled: <body>`, a `weather` command with a
 * streamed answer (reasoning, a tool call and its result, a chat reply) before the final
 * response, and an MCP `lookup` tool call with a JSON result.
 */
async function answer(message: AgentMessage, ctx: AgentCtx): Promise<void> {
  const envelope = message.envelope;
  const body = decode(agentMessageBody(message));
  if (envelope?.tool === 'lookup') {
    await ctx.respond(text.encode(JSON.stringify({ found: (JSON.parse(body) as { arguments?: { q?: string } }).arguments?.q ?? null })));
    return;
  }
  if (envelope?.operation === 'weather') {
    const reasoning = ctx.stream('reasoning');
    await reasoning.write(text.encode('The user wants '));
    await reasoning.write(text.encode('the weather.'));
    await reasoning.finish('stop');
    const tool = ctx.stream('tool_args').withTool('weather').contentType(ContentType.json);
    await tool.write(text.encode('{"city":'));
    await tool.write(text.encode('"Oslo"}'));
    await tool.finish('stop');
    const chat = ctx.stream('chat');
    await chat.write(text.encode('It is 21 °C '));
    await chat.write(text.encode('in Oslo.'));
    await chat.finish('stop');
  }
  await ctx.respond(text.encode(`handled: ${body}`));
}

/** The assistant on `client`'s default stream, ready. */
async function spawnAssistant(client: AgdxClient): Promise<AgentHandle> {
  const agent = Agent.builder().id(assistant).listenOn(AgentTopic.Sessions).respondOn(AgentTopic.Sessions).pollInterval(20).handler({ handle: answer }).build().spawn(client);
  await agent.ready();
  return agent;
}

/** Runs `body` with the assistant running on its own connection, under `layout`. */
export async function withAssistant(open: LayoutEnvFactory, layout: StreamLayout, body: (env: LayoutEnv) => Promise<void>): Promise<void> {
  const env = await open(layout);
  let agent: AgentHandle | undefined;
  try {
    agent = await spawnAssistant(await env.connect());
    await body(env);
    expect(agent.errors).toEqual([]);
  } finally {
    await agent?.shutdown().catch(() => undefined);
    await env.close();
  }
}

/** Seed 002: the requester's `laser.request(...)` gets the assistant's correlated answer. */
export async function seedRequest(env: LayoutEnv): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const correlation = MintUlid.mint(CorrelationId);
    const request = env.laser.agdx(AgentTopic.Sessions, gateway, ConversationId.new()).command(correlation, text.encode(`summarize ${i}`)).withOperation('chat').withTarget(assistant);
    const reply = await env.laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
    expect(decode(agentMessageBody(reply))).toBe(`handled: summarize ${i}`);
    expect(reply.envelope?.correlation?.equals(correlation)).toBe(true);
    expect(reply.envelope?.target?.value).toBe(gateway.value);
  }
}

/** A streamed answer with reasoning and a tool call reaches the requester, and AG-UI replays it in order. */
export async function streamedAnswerAndAguiReplay(env: LayoutEnv): Promise<void> {
  const conversation = ConversationId.new();
  const correlation = MintUlid.mint(CorrelationId);
  const send = env.laser.agdx(AgentTopic.Sessions, gateway, conversation);
  await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Submitted).send();
  const reply = await env.laser.request(send.command(correlation, text.encode('weather in Oslo?')).withOperation('weather').withTarget(assistant), {
    replyTopic: AgentTopic.Sessions,
    timeoutMs: 10_000,
  });
  expect(decode(agentMessageBody(reply))).toBe('handled: weather in Oslo?');
  await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Completed).send();
  const events = await new AguiBridge(env.laser).aguiEvents(conversation);
  const types = events.map((e) => e.type);
  expect(types[0]).toBe('RUN_STARTED');
  expect(types.at(-1)).toBe('RUN_FINISHED');
  const chunks = (type: string): string =>
    events
      .filter((e) => e.type === type)
      .map((e) => (e as { delta: string }).delta)
      .join('');
  expect(chunks('REASONING_MESSAGE_CONTENT')).toBe('The user wants the weather.');
  expect(chunks('TOOL_CALL_ARGS')).toBe('{"city":"Oslo"}');
  expect(chunks('TEXT_MESSAGE_CONTENT')).toBe('It is 21 °C in Oslo.');
  // reasoning, then the tool call, then the chat reply: the layout's places merge in write order
  expect(types.indexOf('REASONING_MESSAGE_END')).toBeLessThan(types.indexOf('TOOL_CALL_START'));
  expect(types.indexOf('TOOL_CALL_END')).toBeLessThan(types.indexOf('TEXT_MESSAGE_START'));
}

/**
 * A session with turns and `context()`, a model call to the declared assistant and the session
 * reads: on the default session layout, or on `config` (a custom one).
 */
export async function sessionTurnsAndContext(env: LayoutEnv, config?: SessionConfig): Promise<void> {
  const factory = config === undefined ? sessions(env.laser) : sessions(env.laser, config);
  const session = factory.create(`ticket-${MintUlid.mint(CorrelationId).toString()}`);
  await session.lifecycle.begin({ agent: gateway });
  await session.append('instruction', 'summarize the ticket');
  const correlation = MintUlid.mint(CorrelationId);
  // a custom session stream has its own lane: the model call goes there, to an assistant serving it
  const custom = config?.streamName;
  const lane = custom === undefined ? env.laser : env.laser.withDefaultStream(custom);
  const serving = custom === undefined ? undefined : await spawnAssistant((await env.connect()).withDefaultStream(custom));
  let reply: AgentMessage;
  try {
    const request = lane.agdx(AgentTopic.Sessions, gateway, session.conversation).command(correlation, text.encode('{"prompt":"summarize"}')).withOperation('chat').withTarget(assistant);
    reply = await lane.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
  } finally {
    await serving?.shutdown();
  }
  await session.append('response', decode(agentMessageBody(reply)));
  await session.lifecycle.end();
  const context = await session.context();
  expect(context.map((turn) => [turn.kind, sessionTurnText(turn)])).toEqual([
    ['instruction', 'summarize the ticket'],
    ['response', 'handled: {"prompt":"summarize"}'],
  ]);
  const info = await factory.get(session.conversation);
  expect(info?.modelCalls).toBe(1n);
  expect(info?.status).toBe('completed');
  const display = (await factory.events(session.conversation)).items.map((e) => e.display);
  expect(display).toContain('model.request');
  expect(display.at(-1)).toBe('session.completed');
}

/**
 * A custom session layout (seed 004): its own stream, bootstrapped with the stream layout, and
 * custom topics for instructions and responses.
 */
export async function customSessionConfig(env: LayoutEnv): Promise<SessionConfig> {
  const stream = `${env.stream}-support`;
  const lane = env.laser.withDefaultStream(stream);
  await lane.bootstrap(PARTITIONS);
  for (const topic of ['support.turns', 'support.replies']) await env.laser.transport.ensureTopic({ stream, topic }, { partitions: PARTITIONS });
  return new SessionConfig().stream(stream).topic('instruction', 'support.turns').topic('response', 'support.replies').contextTurns(10);
}

/** A2A SendMessage (addressed to the assistant) and GetTask until the task completes; then a streamed task (`watch`). */
export async function a2aSendAndGetTask(env: LayoutEnv): Promise<void> {
  const bridge = new A2aBridge(await env.connect(), a2aId, AgentTopic.Sessions, AgentTopic.Sessions).forAgent(assistant);
  const sent = await bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] } } });
  const task = (sent as { result?: { task?: { id?: string } } }).result?.task;
  expect(typeof task?.id).toBe('string');
  let state: string | undefined;
  let got: unknown;
  for (let i = 0; i < 500 && state !== 'TASK_STATE_COMPLETED'; i++) {
    got = await bridge.handleRpc({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: task?.id } });
    state = (got as { result?: { status?: { state?: string } } }).result?.status?.state;
    if (state !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(state).toBe('TASK_STATE_COMPLETED');
  const artifact = (got as { result: { artifacts?: { parts: { text: string }[] }[] } }).result.artifacts?.[0]?.parts[0]?.text;
  expect(artifact).toContain('handled: ');
  expect(artifact).toContain('"hi"');
  // the streaming path waits on the reply topic the layout routes the bridge's replies to
  const watched = await bridge.watch({ message: { role: 'ROLE_USER', parts: [{ text: 'stream it' }] } }, { timeoutMs: 10_000 });
  const final = await watched.final;
  expect(final.state).toEqual({ kind: 'known', name: 'Completed' });
  expect((await bridge.task(watched.task.id)).state).toEqual(final.state);
  expect(final.artifacts[0]?.text).toContain('stream it');
}

/** MCP `tools/call` to the assistant returns its answer as the tool result. */
export async function mcpToolsCall(env: LayoutEnv): Promise<void> {
  const bridge = new McpBridge(await env.connect(), mcpId, AgentTopic.Sessions, AgentTopic.Sessions, 'layouts')
    .forAgent(assistant)
    .withTimeout(10_000)
    .withTool('lookup', 'look something up', { type: 'object', properties: { q: { type: 'string' } } });
  const response = await bridge.handleRpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lookup', arguments: { q: 'oslo' } } });
  expect(response).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: '{"found":"oslo"}' }] } });
}

/**
 * The layout a reader of `layout`'s log might wrongly be given: shared for a per-agent log, a
 * partition per agent otherwise (a single-partition log lacks its partitions; a shared log
 * declares another layout).
 */
function wrongLayout(layout: StreamLayout): StreamLayout {
  if (layout.kind === 'perAgentTopic' || layout.kind === 'perAgentPartition') return { kind: 'shared' };
  return LAYOUTS.find(([name]) => name === 'perAgentPartition')?.[1] as StreamLayout;
}

/** The next offset of every partition of the lane and, under a topic per agent, of the assistant's topic. */
async function laneEnds(env: LayoutEnv): Promise<bigint[]> {
  const topics = env.laser.layout.kind === 'perAgentTopic' ? [AgentTopic.Sessions, 'agent.assistant'] : [AgentTopic.Sessions];
  const ends: bigint[] = [];
  for (const topic of topics) for (const p of (await env.laser.transport.describeTopic({ stream: env.stream, topic })).partitions) ends.push(p.nextOffset);
  return ends;
}

/**
 * Readers given another layout than the writers' are refused with `layout-mismatch` instead of
 * answering from the wrong places: session reads, AG-UI replay, A2A GetTask, a request and a
 * reply wait (before anything is sent) and an agent's start; a bootstrap with that layout is
 * refused too. The writers' own layout reads the same log whole.
 */
export async function readersRefuseAnotherLayout(env: LayoutEnv): Promise<void> {
  const session = sessions(env.laser).create(`ticket-${MintUlid.mint(CorrelationId).toString()}`);
  await session.lifecycle.begin({ agent: gateway });
  const correlation = MintUlid.mint(CorrelationId);
  await env.laser.agdx(AgentTopic.Sessions, gateway, session.conversation).command(correlation, text.encode('{"prompt":"hi"}')).withOperation('chat').withTarget(assistant).send();
  await env.laser.agdx(AgentTopic.Sessions, assistant, session.conversation).respond(correlation, text.encode('hello')).withOperation('chat').withTarget(gateway).send();
  const wrong = AgdxClient.from((await env.connect()).transport, { stream: env.stream, layout: wrongLayout(env.laser.layout) });
  const refused = async (what: string, read: () => Promise<unknown>): Promise<void> => {
    const error = await read().then(() => undefined, (e: unknown) => e);
    expect((error as { kind?: unknown } | undefined)?.kind, `${what}: ${String(error)}`).toBe('layout-mismatch');
  };
  await refused('sessions get', () => sessions(wrong).get(session.conversation));
  await refused('AG-UI replay', () => new AguiBridge(wrong).aguiEvents(session.conversation));
  await refused('A2A GetTask', () => new A2aBridge(wrong, a2aId, AgentTopic.Sessions, AgentTopic.Sessions).task(session.conversation));
  // a requester with the wrong layout would send where the assistant never reads and wait where no
  // reply lands: it is refused before sending, long before its timeout
  const lane = await laneEnds(env);
  const request = wrong.agdx(AgentTopic.Sessions, gateway, session.conversation).command(MintUlid.mint(CorrelationId), text.encode('{"prompt":"again"}')).withOperation('chat').withTarget(assistant);
  await refused('request', () => wrong.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 600_000 }));
  await refused('replies wait', () => wrong.replies(AgentTopic.Sessions, { requester: gateway }).wait({ correlation: MintUlid.mint(CorrelationId), conversation: session.conversation, requester: gateway, timeoutMs: 600_000 }));
  expect(await laneEnds(env)).toEqual(lane);
  // and a second deployment bootstrapping the stream with its layout is refused, the declaration kept
  await refused('bootstrap', () => wrong.bootstrap(PARTITIONS));
  if (env.laser.layout.kind !== 'shared' && env.laser.layout.kind !== 'singlePartition') {
    // the assistant is declared: a shared agent of that name would wait on the lane for work that lands elsewhere
    const agent = Agent.builder().id(assistant).listenOn(AgentTopic.Sessions).respondOn(AgentTopic.Sessions).handler({ handle: answer }).build().spawn(wrong);
    await refused('agent start', () => agent.ready());
    await agent.shutdown().catch(() => undefined);
  }
  expect((await sessions(env.laser).get(session.conversation))?.modelCalls).toBe(1n);
}
