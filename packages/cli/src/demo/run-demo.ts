/**
 * The end-to-end demo: three agents, a session, streamed reasoning and chat, a tool call, a human
 * approval, a state change, a dead letter, and the same worker through A2A and MCP, told as a
 * numbered transcript.
 */

import { AgdxClient, AgentTopic, DEAD_LETTER_TOPIC, agentMessageBody, type AgentHandle } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { sessions } from '@agdx/sessions';
import { ContentType, CorrelationId, DeadLetterReason, decodeAgentDeadLetter, encodeHeaderBlock, MintUlid, type JsonValue } from '@agdx/wire';
import { openLog } from '../connect.js';
import { formatLogPosition, formatPosition } from '../position.js';
import { line, type CommandIo } from '../io.js';
import type { LoopbackServer } from '../http-server.js';
import { DemoAgents, spawnDemoAgents } from './demo-agents.js';
import { DemoTrace } from './demo-trace.js';
import { startDemoServer } from './demo-server.js';
import { clip, Transcript } from './transcript.js';
import { decode } from './body-text.js';

/** Settings of {@link runDemo}. */
export interface DemoOptions {
  /** An Iggy server URL; the embedded MemoryLog when undefined. */
  readonly iggy?: string | undefined;
  /** The stream to use (default `agdx-demo`, plus a run suffix on Iggy so runs never mix). */
  readonly stream?: string | undefined;
  /** Keep the bridges and the AG-UI page up on 127.0.0.1 until the signal fires. */
  readonly serve?: boolean | undefined;
  /** The --serve port (default ephemeral). */
  readonly port?: number | undefined;
  /** The worker writes its summary with a model call (the AI SDK's mock model), recorded by `@agdx/ai-sdk`. */
  readonly mockModel?: boolean | undefined;
  /** Instrument the demo with @agdx/otel and print its trace as a tree at the end. */
  readonly otel?: boolean | undefined;
  /** With `otel`, also export the spans with OTLP/HTTP to this URL. */
  readonly otlpUrl?: string | undefined;
}

const text = new TextEncoder();
const WAIT_MS = 30_000;

function reasonName(code: number): string {
  return Object.entries(DeadLetterReason).find(([, value]) => value === code)?.[0] ?? `reason ${code}`;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`the demo timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collapses repeated consecutive rows into [row, count] pairs. */
function runs(rows: readonly string[]): [string, number][] {
  const out: [string, number][] = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    if (last !== undefined && last[0] === row) last[1] += 1;
    else out.push([row, 1]);
  }
  return out;
}

/** Names the first error an agent survived, which is usually why a wait timed out. */
function agentFailure(error: unknown, handles: readonly AgentHandle[]): unknown {
  for (const handle of handles) {
    const first = handle.errors[0];
    if (first !== undefined) {
      const message = first instanceof Error ? first.message : String(first);
      return new Error(`${error instanceof Error ? error.message : String(error)}; an agent failed: ${message}`, { cause: first });
    }
  }
  return error;
}

/** Calls a JSON-RPC handler in process, or over loopback HTTP when a server URL is given. */
async function rpc(handleRpc: (request: unknown) => Promise<unknown>, url: string | undefined, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (url === undefined) return (await handleRpc(request)) as Record<string, unknown>;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(request),
  });
  return (await response.json()) as Record<string, unknown>;
}

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

/** Runs the demo and prints its transcript to `io.out`. */
export async function runDemo(options: DemoOptions, io: CommandIo): Promise<void> {
  const t = new Transcript(io.out);
  line(io.out, 'agdx demo: a planner, a worker and an approver agent on one durable log. IDs print in Crockford base32.');
  const log = await openLog(options.iggy, io.signal);
  const stream = options.stream ?? (options.iggy === undefined ? 'agdx-demo' : `agdx-demo-${Date.now().toString(36)}`);
  const laser = AgdxClient.from(log.transport, { stream });
  const trace = options.otel === true ? new DemoTrace(laser, options.otlpUrl) : undefined;
  const handles: AgentHandle[] = [];
  let server: LoopbackServer | undefined;
  try {
    await laser.bootstrap(2);
    t.step('Open the log', log.description);
    t.fact('stream', stream);
    t.fact('topics', 'agent.sessions, agent.human_input, agent.dlq and the other agent topics (2 partitions each)');

    const session = sessions(laser).create('incident-42');
    const conversation = session.conversation;

    const spawned = await spawnDemoAgents(laser, {
      reasoning: (chunks) => {
        t.step('Streamed reasoning', `worker streams ${chunks.length} reasoning chunks on agent.sessions`);
        t.fact('reasoning', clip(chunks.join('')));
      },
      toolCall: ({ id, args, result }) => {
        t.step('Tool call', `worker calls ${'search_incidents'}`);
        t.fact('call id', id);
        t.fact('arguments', args);
        t.fact('result', clip(result));
      },
      approval: (prompt, decision) => {
        t.step('Human approval', 'worker asks; the approver agent answers on agent.human_input');
        t.fact('prompt', prompt);
        t.fact('decision', `${decision} (by ${DemoAgents.approver.value})`);
      },
      stateChanged: (patch, document) => {
        t.step('State change', 'worker patches the session state document (JSON Patch on the session lane)');
        t.fact('patch', clip(JSON.stringify(patch)));
        t.fact('state now', clip(JSON.stringify(document)));
      },
      chat: (chunks) => {
        t.step('Streamed chat answer', `worker streams ${chunks.length} chat chunks, finish reason stop`);
        t.fact('answer', clip(chunks.join('')));
      },
      modelCall: (summary) => t.fact('model', summary),
    }, { mockModel: options.mockModel });
    handles.push(spawned.planner, spawned.worker, spawned.approver);
    t.step('Spawn the agents', 'each in its own consumer group');
    t.fact('planner', 'listens on agent.sessions, serves "plan"');
    t.fact('worker', `listens on agent.sessions, serves "summarize" and bridge calls${options.mockModel === true ? '; summarizes with a model call (AI SDK mock model)' : ''}`);
    t.fact('approver', 'listens on agent.human_input, answers approval prompts');

    const begun = await session.lifecycle.begin({ agent: DemoAgents.planner, label: 'incident 42', tags: ['demo'] });
    await session.lifecycle.snapshot({ incident: 42, status: 'open' }, { agent: DemoAgents.planner });
    await session.append('instruction', text.encode('summarize incident 42'));
    t.step('Open a session', 'sessions(laser).create("incident-42")');
    t.fact('conversation', `${conversation.toString()} (derived from "incident-42")`);
    t.fact('start record', formatPosition(begun.position));
    t.fact('turns', 'instruction written to agent.commands; state snapshot {incident: 42, status: "open"}');

    const correlation = MintUlid.mint(CorrelationId);
    const ask = laser
      .agdx(AgentTopic.Sessions, DemoAgents.operator, conversation)
      .command(correlation, text.encode('incident 42'))
      .withOperation('plan')
      .withTarget(DemoAgents.planner);
    t.step('Planner asks the worker', 'operator → planner ("plan"), planner → worker ("summarize")');
    t.fact('command', ask.recordId.toString());
    t.fact('correlation', correlation.toString());
    const reply = await laser.request(ask, { replyTopic: AgentTopic.Sessions, timeoutMs: WAIT_MS, signal: io.signal }).catch((error: unknown) => {
      throw agentFailure(error, handles);
    });

    t.step('Planner receives the answer', 'the correlated response reaches the operator');
    t.fact('reply', `${reply.envelope?.record?.toString() ?? '?'} from ${reply.provenance.agent?.asStr() ?? '?'}`);
    t.fact('text', clip(decode(agentMessageBody(reply))));
    t.fact('elapsed', `${t.elapsedMs()} ms since start`);

    // A poison record: a well-formed header block around bytes that are not an envelope.
    const poison = Uint8Array.from([0xff, 0x00, 0xde, 0xad, 0xbe, 0xef]);
    const appended = await log.transport.append({
      stream,
      topic: AgentTopic.Sessions,
      routing: { key: conversation.toString() },
      records: [{ payload: poison, headers: encodeHeaderBlock({ source: DemoAgents.operator, conversation, target: DemoAgents.worker }, ContentType.cbor, { topic: AgentTopic.Sessions }) }],
    });
    await until('the dead letter', async () => (spawned.worker.stats['dead-lettered'] > 0 ? true : undefined));
    const letters = await until('the dead letter record', async () => {
      const description = await log.transport.describeTopic({ stream, topic: DEAD_LETTER_TOPIC });
      const found = [];
      for (const partition of description.partitions) found.push(...(await log.transport.read({ stream, topic: DEAD_LETTER_TOPIC, partition: partition.partition, offset: 0n })));
      return found.length > 0 ? found : undefined;
    });
    const decoded = letters.map((record) => decodeAgentDeadLetter(record.payload));
    const letter = decoded.find((l) => l.reason === DeadLetterReason.DecodeFailed) ?? decoded[0]!;
    t.step('Poison record dead-lettered', `${poison.length} bytes that are not an envelope, appended to agent.sessions`);
    t.fact('poison at', formatPosition({ topic: AgentTopic.Sessions, partition: appended.partition, offset: appended.baseOffset }));
    t.fact('dead letter', `${reasonName(letter.reason)} after ${letter.attempts} attempt(s), ${letter.payload.length} original bytes kept`);
    t.fact('source', formatLogPosition(letter.source));
    t.fact('detail', clip(letter.detail ?? ''));
    t.fact('records', `${letters.length} on agent.dlq (each consumer group that read it files its own)`);

    const a2a = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Sessions, AgentTopic.Sessions);
    const mcp = new McpBridge(laser, 'mcp-gateway', AgentTopic.Sessions, AgentTopic.Sessions, 'agdx-demo').withTool('ask', 'ask the worker', {
      type: 'object',
      properties: { question: { type: 'string' } },
    });
    const agui = new AguiBridge(laser);
    if (options.serve === true) {
      // The card must name the public URL, which is known once the port is bound.
      let a2aHttp: (request: Request) => Promise<Response> = createA2aHttpHandler(a2a);
      server = await startDemoServer({ a2a: (request) => a2aHttp(request), mcp: createMcpHttpHandler(mcp), agui: agui.handler({ agdxEvents: true }) }, options.port ?? 0);
      a2aHttp = createA2aHttpHandler(a2a, { publicUrl: `${server.url}/a2a/` });
    }
    const a2aUrl = server !== undefined ? `${server.url}/a2a/` : undefined;
    const mcpUrl = server !== undefined ? `${server.url}/mcp` : undefined;
    const via = server !== undefined ? 'over loopback HTTP' : 'handleRpc in process';

    const sent = await rpc((r) => a2a.handleRpc(r), a2aUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'demo-1', role: 'ROLE_USER', parts: [{ text: 'status of the fleet?' }] } },
    });
    const taskId = field(sent, 'result', 'task', 'id') ?? field(sent, 'result', 'id');
    if (typeof taskId !== 'string') throw new Error(`the A2A bridge answered without a task: ${JSON.stringify(sent)}`);
    const done = await until('the A2A task', async () => {
      const got = await rpc((r) => a2a.handleRpc(r), a2aUrl, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } });
      const state = field(got, 'result', 'status', 'state');
      return state === 'TASK_STATE_WORKING' || state === 'TASK_STATE_SUBMITTED' ? undefined : got;
    });
    const artifacts = field(done, 'result', 'artifacts');
    const artifactText = Array.isArray(artifacts) ? String(field(artifacts[0], 'parts', '0', 'text') ?? '') : '';
    t.step('Worker through the A2A bridge', `SendMessage then GetTask, ${via}`);
    t.fact('task', taskId);
    t.fact('state', String(field(done, 'result', 'status', 'state')));
    t.fact('artifact', clip(artifactText));

    const called = await rpc((r) => mcp.handleRpc(r), mcpUrl, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'ask', arguments: { question: 'is incident 42 closed?' } },
    });
    const content = field(called, 'result', 'content');
    t.step('Worker through the MCP bridge', `tools/call "ask", ${via}`);
    t.fact('isError', String(field(called, 'result', 'isError') ?? false));
    t.fact('content', clip(Array.isArray(content) ? String(field(content[0], 'text') ?? '') : JSON.stringify(called)));

    await session.lifecycle.end({ agent: DemoAgents.planner, reason: 'summary published' });
    const events = await agui.aguiEvents(conversation, AgentTopic.Sessions);
    const state = await agui.reconstructState(conversation);
    const counts = new Map<string, number>();
    for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    t.step('AG-UI events', `${events.length} events converted from the conversation's records`);
    t.fact('types', clip([...counts].map(([type, n]) => (n > 1 ? `${type}×${n}` : type)).join(', '), 400));
    t.fact('state', clip(JSON.stringify(state as JsonValue)));

    const info = await sessions(laser).get(conversation);
    const timeline = await sessions(laser).events(conversation, { limit: 100 });
    const turns = await session.context();
    t.step('Session timeline', `status ${info?.status ?? 'unknown'}, ${timeline.items.length} events on the session lane`);
    t.fact('turns', `${turns.length}: ${runs(turns.map((turn) => turn.kind)).map(([kind, n]) => (n > 1 ? `${kind} ×${n}` : kind)).join(', ')}`);
    // The same summary `agdx sessions show` prints, so the two always agree.
    t.fact('calls', `model calls ${info?.modelCalls ?? 0n}, tool calls ${info?.toolCalls ?? 0n}`);
    for (const [row, count] of runs(timeline.items.map((event) => `${event.display.padEnd(18)} ${(event.agent ?? '-').padEnd(10)} ${clip(event.summary, 60)}`))) {
      t.note(count > 1 ? `${row} ×${count}` : row);
    }
    if (trace !== undefined) {
      line(io.out);
      line(io.out, 'OpenTelemetry trace of the conversation (@agdx/otel):');
      line(io.out, await trace.tree(conversation.toString()));
    }
    line(io.out);
    line(io.out, `demo finished in ${t.elapsedMs()} ms`);

    if (server !== undefined) {
      line(io.out);
      line(io.out, 'serving on 127.0.0.1 until Ctrl-C:');
      line(io.out, `  AG-UI live page  ${server.url}/?threadId=${conversation.toString()}`);
      line(io.out, `  AG-UI endpoint   ${server.url}/agui?threadId=${conversation.toString()}`);
      line(io.out, `  A2A JSON-RPC     ${server.url}/a2a/   (card: ${server.url}/a2a/.well-known/agent-card.json)`);
      line(io.out, `  MCP              ${server.url}/mcp`);
      await new Promise<void>((resolve) => {
        if (io.signal.aborted) resolve();
        io.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  } finally {
    await server?.close();
    await Promise.allSettled(handles.map((handle) => handle.shutdown()));
    await laser.close();
    const exportFailure = await trace?.close();
    if (exportFailure !== undefined) line(io.err, `agdx demo: the OTLP export failed: ${exportFailure}`);
    await log.close();
  }
}
