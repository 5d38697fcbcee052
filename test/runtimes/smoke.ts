/**
 * The runtime smoke suite, written once and run unchanged in Node, Deno, Bun, workerd and
 * headless Chromium (see runtimes.test.ts). It imports only the packages' public entries, so
 * each runtime exercises what a user installs: the built `dist/` files, resolved through the
 * packages' `exports` maps or bundled by esbuild.
 */
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { sessions } from '@agdx/sessions';
import { KeyKind, KeyRecord, KeyRegistry, resolveEd25519Backend, SigningKey } from '@agdx/sign';
import { MemoryLog, partitionForKey } from '@agdx/transport';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, decodeEnvelope, encodeEnvelope, MintUlid, RecordId } from '@agdx/wire';

/** One check's outcome; `detail` says what was seen, so a failure in a far runtime is readable. */
export interface SmokeResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const text = new TextEncoder();
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A log with one echoing agent, `assistant`, listening and answering on `agent.sessions`. */
async function world(): Promise<{ laser: AgdxClient; close: () => Promise<void> }> {
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'smoke' });
  await laser.bootstrap(4);
  const assistant = await Agent.builder()
    .id(AgentId.new('assistant'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler((message, ctx) => ctx.respond(text.encode(`handled: ${decode(agentMessageBody(message))}`)))
    .build()
    .spawn(laser);
  await assistant.ready();
  return {
    laser,
    close: async () => {
      await assistant[Symbol.asyncDispose]();
      await laser.close();
    },
  };
}

async function requestRoundTrip(): Promise<string> {
  const { laser, close } = await world();
  try {
    const request = laser
      .agdx(AgentTopic.Sessions, AgentId.new('bridge'), ConversationId.new())
      .command(MintUlid.mint(CorrelationId), text.encode('summarize'))
      .withTarget(AgentId.new('assistant'));
    const reply = await laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 20_000 });
    return expectEqual(decode(agentMessageBody(reply)), 'handled: summarize');
  } finally {
    await close();
  }
}

async function signAndVerify(): Promise<string> {
  const key = SigningKey.fromBytes(crypto.getRandomValues(new Uint8Array(32)));
  const unsigned = AgentEnvelope.command(MintUlid.mint(RecordId), ConversationId.new(), AgentId.new('planner'), MintUlid.mint(CorrelationId), text.encode('summarize incident 42'));
  const signed = await key.sign(unsigned);
  const decoded = decodeEnvelope(encodeEnvelope(signed));
  const registry = new KeyRegistry();
  registry.enrollRecord(KeyRecord.fromVerifyingBytes('planner', key.verifyingKey, KeyKind.Agent));
  const principal = await registry.verify(decoded);
  // A key the registry does not know must be refused with a typed error, in every runtime.
  const stranger = await SigningKey.fromBytes(crypto.getRandomValues(new Uint8Array(32))).sign(unsigned);
  let refusal: string | undefined;
  try {
    await registry.verify(stranger);
  } catch (error) {
    refusal = (error as { kind?: string }).kind;
  }
  if (refusal === undefined) throw new Error('an envelope signed by an unenrolled key verified, or failed without a kind');
  // Whichever back end this runtime gets (node-crypto, webcrypto or noble), its bytes must be noble's.
  const backend = await resolveEd25519Backend();
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const message = text.encode('same bytes on every back end');
  const chosen = await SigningKey.fromBytes(seed).signBytes(message);
  const pure = SigningKey.fromBytes(seed, { backend: 'noble' }).signBytesSync(message);
  if (chosen.length !== 64 || chosen.some((b, i) => b !== pure[i])) throw new Error(`the ${backend} back end's signature differs from noble's`);
  return `${expectEqual(String(principal), 'planner')}; unenrolled key refused (${refusal}); back end ${backend}, bytes equal to noble's`;
}

async function sessionContext(): Promise<string> {
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'smoke' });
  await laser.bootstrap(4);
  try {
    const session = sessions(laser).create('smoke-agent');
    await session.append('instruction', text.encode('summarize the ticket'));
    await session.append('tool.call', text.encode('search(ticket=42)'));
    await session.append('tool.result', text.encode('3 comments found'));
    const context = await session.context();
    return expectEqual(context.map((turn) => turn.kind).join(','), 'instruction,tool.call,tool.result');
  } finally {
    await laser.close();
  }
}

async function keyRouting(): Promise<string> {
  // XXH32 of "user-123" is 0x0CC9EC8C (Iggy's vectors); routing must need no WebAssembly.
  return expectEqual(await partitionForKey('user-123', 7), 0x0cc9ec8c % 7);
}

/**
 * Serves the bridges as a web-standard fetch handler, each request on a fresh log with one
 * agent: `/a2a`, `/mcp` and `/agui`. workerd needs the per-request world, because a Worker may
 * not resolve one request's promises from another request.
 */
export async function serveBridges(request: Request): Promise<Response> {
  const { laser, close } = await world();
  try {
    const path = new URL(request.url).pathname;
    let response: Response;
    if (path === '/a2a') {
      response = await createA2aHttpHandler(new A2aBridge(laser, AgentId.new('a2a-gateway'), AgentTopic.Sessions, AgentTopic.Sessions).forAgent(AgentId.new('assistant')))(request);
    } else if (path === '/mcp') {
      const mcp = new McpBridge(laser, AgentId.new('mcp-gateway'), AgentTopic.Sessions, AgentTopic.Sessions, 'smoke-tools').withTool('ask', 'ask the assistant', { type: 'object' }).forAgent(AgentId.new('assistant'));
      response = await createMcpHttpHandler(mcp)(request);
    } else if (path === '/agui') {
      const handler = new AguiBridge(laser).handler({ startRuns: { source: AgentId.new('ui'), target: AgentId.new('assistant') }, runTimeoutMs: 20_000 });
      response = await handler(request);
    } else return new Response('not found', { status: 404 });
    // The body is read before the log closes: an SSE run streams from the log.
    return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
  } finally {
    await close();
  }
}

/** The three bridge requests; `call` sends each one, in process or over HTTP. */
export const bridgeRequests = {
  a2a: () =>
    jsonPost('/a2a', {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'summarize' }] } },
    }),
  mcp: () => jsonPost('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { q: 'summarize' } } }),
  agui: () =>
    jsonPost(
      '/agui',
      { threadId: ConversationId.new().toString(), runId: 'run-1', messages: [{ id: 'u-1', role: 'user', content: 'summarize' }], tools: [], context: [], state: {}, forwardedProps: {} },
      'text/event-stream',
    ),
};

function jsonPost(path: string, body: unknown, accept = 'application/json, text/event-stream'): { path: string; init: RequestInit } {
  return { path, init: { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(body) } };
}

/** Checks the three bridge answers; `call` turns a path and init into a Response. */
export async function bridgeChecks(call: (path: string, init: RequestInit) => Promise<Response>): Promise<SmokeResult[]> {
  return Promise.all([
    check('A2A SendMessage through the web handler', async () => {
      const { path, init } = bridgeRequests.a2a();
      const body = await (await call(path, init)).text();
      for (const want of ['TASK_STATE_COMPLETED', 'handled: ']) if (!body.includes(want)) throw new Error(`no ${want} in ${body.slice(0, 400)}`);
      return 'completed, with the answer as its artifact';
    }),
    check('MCP tools/call through the web handler', async () => {
      const { path, init } = bridgeRequests.mcp();
      const body = await (await call(path, init)).text();
      if (!body.includes('handled:')) throw new Error(`no tool result in ${body.slice(0, 400)}`);
      return 'answered with the tool result';
    }),
    check('AG-UI run through the web handler', async () => {
      const { path, init } = bridgeRequests.agui();
      const body = await (await call(path, init)).text();
      // The run publishes the user's message as a command and finishes when the agent answers it.
      for (const want of ['RUN_STARTED', 'RUN_FINISHED']) if (!body.includes(want)) throw new Error(`no ${want} in ${body.slice(0, 600)}`);
      if (body.includes('RUN_ERROR')) throw new Error(`the run failed: ${body.slice(0, 600)}`);
      return 'RUN_STARTED then RUN_FINISHED once the agent answered';
    }),
  ]);
}

function expectEqual<T>(actual: T, expected: T): string {
  if (actual !== expected) throw new Error(`expected ${String(expected)}, got ${String(actual)}`);
  return String(actual);
}

async function check(name: string, body: () => Promise<string>): Promise<SmokeResult> {
  try {
    return { name, ok: true, detail: await body() };
  } catch (error) {
    return { name, ok: false, detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/**
 * Runs every check in this runtime. With `bridgesInProcess` the bridges are called as plain
 * functions; workerd passes false and has Node call them over HTTP instead.
 */
export async function runSmoke(bridgesInProcess = true): Promise<SmokeResult[]> {
  const results = [
    await check('seed 002 request round trip on MemoryLog', requestRoundTrip),
    await check('envelope signed, encoded, decoded and verified', signAndVerify),
    await check('session turns and context()', sessionContext),
    await check('XXH32 key routing without WebAssembly', keyRouting),
  ];
  if (bridgesInProcess) results.push(...(await bridgeChecks((path, init) => serveBridges(new Request(`http://smoke.local${path}`, init)))));
  return results;
}
