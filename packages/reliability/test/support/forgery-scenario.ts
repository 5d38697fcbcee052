/**
 * Forged and insider replies against every verified wait, and forged `source` commands against a
 * verifying agent. One in-memory log; a verifier that enrolls the worker, an insider (another
 * enrolled agent) and an operator; a worker whose handler first appends the round's forgeries
 * and only then answers genuinely, so on the reply's partition every forgery comes first: a
 * surface that accepted any of them would answer with it. Rounds are sequential and rotate over
 * the surfaces; the forgery order is seeded.
 */
import { AgdxClient, Agent, AgentTopic, agentMessageBody, SkippedRecordError, type AgentHandle, type AgentMessage } from '@agdx/agents';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { SeededRandom } from '@agdx/reliability';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import {
  AgentEnvelope,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  decodeAgentDeadLetter,
  DeadLetterReason,
  MintUlid,
  RecordId,
} from '@agdx/wire';

/** Where a verified answer is awaited. */
export const SURFACES = ['request-targeted', 'request-untargeted', 'a2a-blocking', 'a2a-streaming', 'a2a-get-task', 'mcp-tools-call', 'runtime-command'] as const;
/** One of {@link SURFACES}. */
export type Surface = (typeof SURFACES)[number];

/** The forged replies appended before each genuine one. */
export const FORGERIES = ['insider-as-itself', 'insider-as-worker', 'unsigned-as-worker', 'unknown-key-as-worker', 'tampered-worker-reply', 'replayed-worker-reply'] as const;
/** The forged commands sent before each genuine one to the verifying agent. */
export const FORGED_COMMANDS = ['insider-as-admin', 'worker-key-as-admin', 'insider-as-worker'] as const;

/** What one surface saw. */
export interface SurfaceFigures {
  rounds: number;
  /** Forged or insider records appended ahead of the genuine one. */
  forged: number;
  /** Of those, how many were refused (the round ended with the genuine answer). */
  refused: number;
  /** Rounds that ended with anything but the genuine answer. */
  failures: string[];
}

/** The figures of a run. */
export interface ForgeryReport {
  readonly seed: number;
  readonly rounds: number;
  readonly surfaces: Record<Surface, SurfaceFigures>;
  /** Forged records in total, and how many were refused. */
  readonly forged: number;
  readonly refused: number;
  /** Skipped records the reply hubs reported to the client's onError (one per forged reply they refused). */
  readonly reportedSkips: number;
  /** Forged-source commands dead-lettered SourceMismatch. */
  readonly deadLetteredSourceMismatch: number;
  readonly slowestRoundMs: number;
  readonly ok: boolean;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const STREAM = 'forgery';
const ctx = { contentType: ContentType.raw, agentVersion: 1 };
const key = (n: number): SigningKey => SigningKey.fromBytes(new Uint8Array(32).fill(n));

interface Plan {
  genuine: string;
  forgeries: readonly (typeof FORGERIES)[number][];
}

/** The envelope a forgery of `kind` publishes in answer to `request`. */
async function forgeReply(kind: (typeof FORGERIES)[number], request: AgentEnvelope, keys: Record<'worker' | 'insider' | 'stranger', SigningKey>): Promise<AgentEnvelope> {
  const reply = (source: string, body: string, correlation = request.correlation as CorrelationId): AgentEnvelope =>
    AgentEnvelope.fromFields({ kind: 'response', record: MintUlid.mint(RecordId), conversation: request.conversation, source: AgentId.new(source), target: request.source, correlation, body: enc.encode(body) });
  switch (kind) {
    case 'insider-as-itself':
      return keys.insider.sign(reply('insider', `forged: ${kind}`), ctx);
    case 'insider-as-worker':
      return keys.insider.sign(reply('worker', `forged: ${kind}`), ctx);
    case 'unsigned-as-worker':
      return reply('worker', `forged: ${kind}`);
    case 'unknown-key-as-worker':
      return keys.stranger.sign(reply('worker', `forged: ${kind}`), ctx);
    case 'tampered-worker-reply':
      return (await keys.worker.sign(reply('worker', 'signed text'), ctx)).withBody(enc.encode(`forged: ${kind}`));
    case 'replayed-worker-reply':
      // A genuine worker answer to another request, re-pointed at this one.
      return (await keys.worker.sign(reply('worker', `forged: ${kind}`, MintUlid.mint(CorrelationId)), ctx)).with({ correlation: request.correlation });
  }
}

/**
 * Runs `rounds` rounds (rotating over {@link SURFACES}) and tallies what each surface refused.
 * Stops early, with a failure, once `deadlineMs` has passed.
 */
export async function runForgery(options: { readonly rounds: number; readonly seed: number; readonly deadlineMs: number; readonly waitMs?: number }): Promise<ForgeryReport> {
  const random = new SeededRandom(options.seed);
  const waitMs = options.waitMs ?? 10_000;
  const keys = { worker: key(81), insider: key(82), admin: key(83), stranger: key(84) };
  const registry = new KeyRegistry();
  registry.enroll('worker', keys.worker);
  registry.enroll('insider', keys.insider);
  registry.enroll('admin', keys.admin, KeyKind.Operator);
  let reportedSkips = 0;
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry, onError: (e) => void (e instanceof SkippedRecordError && reportedSkips++) });
  await laser.bootstrap(2);

  let plan: Plan = { genuine: '', forgeries: [] };
  const answer = async (message: AgentMessage, respond: (body: Uint8Array) => Promise<unknown>, topic: string): Promise<void> => {
    const request = message.envelope as AgentEnvelope;
    for (const kind of plan.forgeries) await laser.publish(topic, await forgeReply(kind, request, keys), ContentType.raw);
    await respond(enc.encode(plan.genuine));
  };
  const workers: AgentHandle[] = [];
  for (const [listen, reply] of [
    [AgentTopic.Commands, AgentTopic.Responses],
    [AgentTopic.ToolCalls, AgentTopic.ToolResults],
  ] as const) {
    const handle = Agent.builder()
      .id('worker')
      .consumerGroup(`worker-${listen}`)
      .listenOn(listen)
      .respondOn(reply)
      .signingKey(keys.worker)
      .heartbeats(false)
      .handler((message, c) => answer(message, (body) => c.respond(body), reply))
      .spawn(laser);
    workers.push(handle);
  }
  // The verifying agent: forged-source commands must be dead-lettered, genuine ones handled.
  let guardedHandled = 0;
  const guarded = Agent.builder()
    .id('guarded')
    .listenOn(AgentTopic.LlmIo)
    .verifier(registry)
    .heartbeats(false)
    .handler(() => void guardedHandled++)
    .spawn(laser);
  workers.push(guarded);
  await Promise.all(workers.map((w) => w.ready()));

  const a2aBridge = new A2aBridge(laser, 'a2a-gateway', AgentTopic.Commands, AgentTopic.Responses).forAgent('worker');
  const a2a = createA2aHttpHandler(a2aBridge, { sendMessageWaitMs: waitMs, streamTimeoutMs: waitMs });
  const mcp = createMcpHttpHandler(new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'forgery').withTool('ask', 'ask', { type: 'object' }).withTimeout(waitMs).forAgent('worker'));
  const post = async (handler: (r: Request) => Promise<Response>, method: string, params: unknown, accept = 'application/json'): Promise<string> =>
    (await handler(new Request('http://127.0.0.1/', { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }))).text();
  const a2aMessage = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };

  // Each surface returns the text it settled on (the genuine answer, or what it took instead).
  const ask: Record<Exclude<Surface, 'runtime-command'>, () => Promise<string>> = {
    'request-targeted': async () =>
      dec.decode(agentMessageBody(await laser.request(laser.agdx(AgentTopic.Commands, 'requester', ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode('q')).withTarget('worker'), { replyTopic: AgentTopic.Responses, timeoutMs: waitMs }))),
    'request-untargeted': async () =>
      dec.decode(agentMessageBody(await laser.request(laser.agdx(AgentTopic.Commands, 'requester', ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode('q')), { replyTopic: AgentTopic.Responses, timeoutMs: waitMs, expectFrom: 'worker' }))),
    'a2a-blocking': () => post(a2a, 'SendMessage', a2aMessage),
    'a2a-streaming': () => post(a2a, 'SendStreamingMessage', a2aMessage, 'text/event-stream'),
    'a2a-get-task': async () => {
      const task = await a2aBridge.submit(a2aMessage);
      const until = performance.now() + waitMs;
      for (;;) {
        const seen = await a2aBridge.task(task.id);
        if (seen.state.kind === 'known' && seen.state.name !== 'Working') return seen.artifacts[0]?.text ?? '';
        if (performance.now() > until) return 'no terminal task state in time';
        await new Promise((r) => setTimeout(r, 2));
      }
    },
    'mcp-tools-call': () => post(mcp, 'tools/call', { name: 'ask', arguments: {} }),
  };

  const surfaces = Object.fromEntries(SURFACES.map((s) => [s, { rounds: 0, forged: 0, refused: 0, failures: [] as string[] }])) as Record<Surface, SurfaceFigures>;
  const started = performance.now();
  let slowestRoundMs = 0;
  let forgedCommands = 0;
  for (let round = 0; round < options.rounds; round++) {
    const surface = SURFACES[round % SURFACES.length] as Surface;
    const figures = surfaces[surface];
    if (performance.now() - started > options.deadlineMs) {
      figures.failures.push(`round ${round}: deadline reached`);
      break;
    }
    const roundStart = performance.now();
    figures.rounds++;
    if (surface === 'runtime-command') {
      const before = guardedHandled;
      const session = ConversationId.new();
      const command = (source: string) => laser.agdx(AgentTopic.LlmIo, source, session).command(MintUlid.mint(CorrelationId), enc.encode('w')).withTarget('guarded');
      for (const kind of shuffled(random, FORGED_COMMANDS)) {
        const signer = kind === 'worker-key-as-admin' ? keys.worker : keys.insider;
        await command(kind === 'insider-as-worker' ? 'worker' : 'admin').signedBy(signer).send();
      }
      forgedCommands += FORGED_COMMANDS.length;
      figures.forged += FORGED_COMMANDS.length;
      await command('admin').signedBy(keys.admin).send();
      const until = performance.now() + waitMs;
      while (guardedHandled === before && performance.now() < until) await new Promise((r) => setTimeout(r, 2));
      // The genuine command comes last on its partition, so every forged one was judged by now.
      if (guardedHandled === before + 1 && guarded.stats['dead-lettered'] === forgedCommands) figures.refused += FORGED_COMMANDS.length;
      else figures.failures.push(`round ${round}: handled ${guardedHandled - before}, dead-lettered ${guarded.stats['dead-lettered']} of ${forgedCommands}`);
    } else {
      plan = { genuine: `genuine ${round}`, forgeries: shuffled(random, FORGERIES) };
      figures.forged += plan.forgeries.length;
      let got: string;
      try {
        got = await ask[surface]();
      } catch (error) {
        got = `threw ${(error as Error).message}`;
      }
      if (got.includes(plan.genuine) && !got.includes('forged')) figures.refused += plan.forgeries.length;
      else figures.failures.push(`round ${round}: ${got.slice(0, 200)}`);
    }
    slowestRoundMs = Math.max(slowestRoundMs, performance.now() - roundStart);
  }

  let deadLetteredSourceMismatch = 0;
  const dlq = await log.describeTopic({ stream: STREAM, topic: AgentTopic.Dlq });
  for (const p of dlq.partitions) {
    for (const r of await log.read({ stream: STREAM, topic: AgentTopic.Dlq, partition: p.partition, offset: 0n, maxCount: 1_000_000 })) {
      if (decodeAgentDeadLetter(r.payload).reason === DeadLetterReason.SourceMismatch) deadLetteredSourceMismatch++;
    }
  }
  await Promise.all(workers.map((w) => w.shutdown()));
  await laser.close();
  const all = Object.values(surfaces);
  const forged = all.reduce((n, s) => n + s.forged, 0);
  const refused = all.reduce((n, s) => n + s.refused, 0);
  // Every forged reply a reply hub refused is reported once (GetTask scans without a hub).
  const hubForged = forged - surfaces['a2a-get-task'].forged - surfaces['runtime-command'].forged;
  const ok = all.every((s) => s.failures.length === 0) && forged === refused && deadLetteredSourceMismatch === forgedCommands && reportedSkips === hubForged;
  return { seed: options.seed, rounds: options.rounds, surfaces, forged, refused, reportedSkips, deadLetteredSourceMismatch, slowestRoundMs: Math.round(slowestRoundMs * 10) / 10, ok };
}

function shuffled<T>(random: SeededRandom, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
