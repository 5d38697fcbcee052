/**
 * The three edge handlers (A2A, MCP, AG-UI live endpoint) over one in-memory log, and a seeded
 * generator of hostile HTTP requests for them. A handler must answer every request with a
 * status below 500 within a bounded time, whatever the body.
 */
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { createAguiHandler } from '@agdx/agui';
import { A2aBridge, createA2aHttpHandler, type EdgeAuthorization } from '@agdx/bridge-a2a';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { mutateBytes, SeededRandom } from '@agdx/reliability';
import { MemoryLog } from '@agdx/transport';
import { ConversationId, CorrelationId, MintUlid } from '@agdx/wire';

/** A web-standard handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** The handlers under test and the client they share. */
export interface EdgeHandlers {
  readonly client: AgdxClient;
  readonly a2a: FetchHandler;
  readonly mcp: FetchHandler;
  readonly agui: FetchHandler;
}

/**
 * Builds the handlers over a fresh bootstrapped MemoryLog; `authorize` guards A2A and MCP. No
 * agent answers here, so streams and blocking sends wait 100 ms, well inside the fuzz bound.
 */
export async function edgeHandlers(authorize?: EdgeAuthorization): Promise<EdgeHandlers> {
  const client = AgdxClient.from(new MemoryLog(), { stream: 'edge' });
  await client.bootstrap(2);
  const a2a = createA2aHttpHandler(new A2aBridge(client, 'a2a-gateway', AgentTopic.Sessions, AgentTopic.Sessions), { authorize, streamTimeoutMs: 100, sendMessageWaitMs: 100 });
  const mcp = createMcpHttpHandler(new McpBridge(client, 'mcp-gateway', AgentTopic.Sessions, AgentTopic.Sessions, 'reliability'), { authorize });
  const agui = createAguiHandler(client, { keepaliveMs: 50 });
  return { client, a2a, mcp, agui };
}

const A2A_METHODS = ['SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'message/send', 'tasks/get', ''];
const MCP_METHODS = ['initialize', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get', 'ping', 'notifications/initialized'];

function randomJson(random: SeededRandom, depth: number): unknown {
  switch (random.int(depth > 3 ? 5 : 8)) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER]);
    case 3:
      return random.pick(['', 'x', '\u0000', '😀'.repeat(random.int(20)), ConversationId.new().toString(), 'a'.repeat(random.int(5000))]);
    case 4:
      return MintUlid.mint(CorrelationId).toString();
    case 5:
      return Array.from({ length: random.int(5) }, () => randomJson(random, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = ['id', 'message', 'parts', 'kind', 'text', 'role', 'name', 'arguments', 'uri', 'params', 'threadId', 'runId', '__proto__', 'constructor', 'messages', 'state', 'tools', 'context', 'forwardedProps', 'after'];
      for (let i = random.int(6); i > 0; i--) o[random.pick(keys)] = randomJson(random, depth + 1);
      return o;
    }
  }
}

function validBodies(kind: 'a2a' | 'mcp' | 'agui'): unknown[] {
  const thread = ConversationId.derive('fuzz-thread').toString();
  if (kind === 'a2a') {
    return [
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', messageId: 'm1', parts: [{ text: 'hi' }] } } },
      { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: thread } },
      { jsonrpc: '2.0', id: 3, method: 'CancelTask', params: { id: thread } },
    ];
  }
  if (kind === 'mcp') {
    return [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'memory_search', arguments: { query: 'x' } } },
      { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'agdx://x' } },
    ];
  }
  return [{ threadId: thread, runId: MintUlid.mint(CorrelationId).toString(), messages: [], tools: [], context: [], state: {}, forwardedProps: {} }];
}

/** One hostile request for the handler `kind`. */
export function hostileRequest(random: SeededRandom, kind: 'a2a' | 'mcp' | 'agui', signal: AbortSignal): Request {
  const method = random.chance(0.9) ? 'POST' : random.pick(['GET', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
  const headers = new Headers();
  if (random.chance(0.9)) headers.set('content-type', random.pick(['application/json', 'application/json; charset=utf-8', 'application/vnd.x+json', 'text/plain']));
  if (random.chance(0.3)) headers.set('accept', random.pick(['text/event-stream', 'application/json, text/event-stream', '*/*']));
  if (kind === 'mcp' && random.chance(0.2)) headers.set('mcp-protocol-version', random.pick(['2025-06-18', '2024-11-05', 'bogus']));
  if (kind === 'agui' && random.chance(0.2)) headers.set('last-event-id', random.pick(['0:0', '1:99', 'x', '-1:-1', '99999999999999999999:1']));
  let body: Uint8Array | undefined;
  if (method !== 'GET') {
    const valid = validBodies(kind);
    const r = random.int(5);
    if (r === 0) body = random.bytes(random.int(200));
    else if (r === 1) body = mutateBytes(random, new TextEncoder().encode(JSON.stringify(random.pick(valid))));
    else if (r === 2) body = new TextEncoder().encode(JSON.stringify(randomJson(random, 0)));
    else {
      // A valid shape with one member replaced by a random value.
      const base = structuredClone(random.pick(valid)) as Record<string, unknown>;
      const key = random.pick(['jsonrpc', 'id', 'method', 'params', 'threadId', 'runId', 'messages', 'state']);
      base[key] = key === 'method' ? random.pick(kind === 'mcp' ? MCP_METHODS : A2A_METHODS) : randomJson(random, 1);
      if (random.chance(0.3) && typeof base['params'] === 'object' && base['params'] !== null) (base['params'] as Record<string, unknown>)['message'] = randomJson(random, 1);
      body = new TextEncoder().encode(JSON.stringify(base));
    }
  }
  const path = kind === 'agui' && method === 'GET' ? `/agui?threadId=${random.chance(0.5) ? ConversationId.derive('fuzz-thread').toString() : encodeURIComponent(String(randomJson(random, 3)))}` : random.pick(['/', '/rpc', '/.well-known/agent-card.json', '/mcp']);
  return new Request(`http://127.0.0.1${path}`, { method, headers, body: body as BodyInit | undefined, signal });
}

/** What one request produced. */
export interface EdgeOutcome {
  readonly status: number;
  /** True when the body had not ended when the bound ran out (an open SSE follow is allowed to). */
  readonly streaming: boolean;
  readonly elapsedMs: number;
}

/**
 * Sends `request` through `handler`, reads the body for at most `boundMs` and then aborts; a
 * thrown handler counts as status 0 (it must never throw: it owns its errors).
 */
export async function exchange(handler: FetchHandler, request: Request, abort: AbortController, boundMs: number): Promise<EdgeOutcome> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), boundMs);
  });
  try {
    const response = await Promise.race([handler(request), deadline]);
    if (response === 'timeout') return { status: -1, streaming: false, elapsedMs: performance.now() - started };
    let streaming = false;
    if (response.body !== null) {
      const reader = response.body.getReader();
      for (;;) {
        const next = await Promise.race([reader.read(), deadline]);
        if (next === 'timeout') {
          streaming = true;
          abort.abort();
          await reader.cancel().catch(() => undefined);
          break;
        }
        if (next.done) break;
      }
    }
    return { status: response.status, streaming, elapsedMs: performance.now() - started };
  } catch {
    return { status: 0, streaming: false, elapsedMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** Figures of fuzzing one handler. */
export interface EdgeFuzzReport {
  readonly handler: 'a2a' | 'mcp' | 'agui';
  readonly requests: number;
  readonly statuses: Record<string, number>;
  /** Requests answered 5xx, thrown (0) or not answered in the bound (-1): must be 0. */
  readonly failures: number;
  readonly failureSamples: string[];
  /** AG-UI follow streams still open at the bound (allowed; they were cancelled). */
  readonly openStreams: number;
  readonly slowestMs: number;
  readonly elapsedMs: number;
}

/** Sends `count` seeded hostile requests to one handler, each bounded by `boundMs`. */
export async function fuzzEdge(handlers: EdgeHandlers, kind: 'a2a' | 'mcp' | 'agui', seed: number, count: number, boundMs: number, maxMs: number): Promise<EdgeFuzzReport> {
  const started = performance.now();
  const random = new SeededRandom(seed);
  const statuses: Record<string, number> = {};
  const failureSamples: string[] = [];
  let failures = 0;
  let openStreams = 0;
  let slowest = 0;
  let i = 0;
  for (; i < count && performance.now() - started < maxMs; i++) {
    const abort = new AbortController();
    const outcome = await exchange(handlers[kind], hostileRequest(random, kind, abort.signal), abort, boundMs);
    statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
    slowest = Math.max(slowest, outcome.elapsedMs);
    if (outcome.streaming) openStreams += 1;
    const bad = outcome.status < 200 || outcome.status >= 500 || (outcome.streaming && kind !== 'agui');
    if (bad) {
      failures += 1;
      if (failureSamples.length < 5) failureSamples.push(`#${i} status ${outcome.status}${outcome.streaming ? ' (still streaming)' : ''}`);
    }
  }
  return { handler: kind, requests: i, statuses, failures, failureSamples, openStreams, slowestMs: slowest, elapsedMs: performance.now() - started };
}
