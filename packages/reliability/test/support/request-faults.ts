/**
 * Correlated requests through network faults: an agent talks to the dev server directly while
 * the requester's connection runs through the fault proxy. Every `AgdxClient.request` must
 * settle (its reply, or a typed error) within its own timeout plus a small grace, whatever the
 * network does; once the network is clean again, requests succeed.
 */
import { AgdxClient, AgentTopic, agentMessageBody } from '@agdx/agents';
import { startDevServer } from '@agdx/iggy-dev-server';
import { isBrandedError, SeededRandom, summarize, type SampleSummary } from '@agdx/reliability';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { spawnEchoAgent } from './echo-agent.js';
import { FaultProxy } from './fault-proxy.js';

/** Figures of a run. */
export interface RequestFaultReport {
  readonly requests: number;
  readonly answered: number;
  readonly failed: Record<string, number>;
  readonly untypedErrors: string[];
  readonly overBound: number;
  readonly boundMs: number;
  readonly requestMs: SampleSummary;
  readonly wrongAnswers: number;
  readonly recovered: boolean;
  /** Per request: the fault phase and how it ended (`ok`, an error kind, or `wrong`). */
  readonly trace: string[];
}

const STREAM = 'reqfaults';

/** An echo agent on the dev server, and a requester whose connection runs through the fault proxy. */
interface EchoBehindProxy extends AsyncDisposable {
  readonly proxy: FaultProxy;
  readonly requester: AgdxClient;
}

async function echoBehindProxy(partitions: number): Promise<EchoBehindProxy> {
  const server = await startDevServer();
  const proxy = await FaultProxy.start(() => ({ host: server.host, port: server.port }));
  const agentTransport = await IggyTransport.connect(server.url);
  const agentClient = AgdxClient.from(agentTransport, { stream: STREAM });
  await agentClient.bootstrap(partitions);
  const agent = await spawnEchoAgent(agentClient);
  const requesterTransport = await IggyTransport.connect({
    host: '127.0.0.1',
    port: proxy.port,
    requestTimeoutMs: 300,
    connectTimeoutMs: 300,
    heartbeatIntervalMs: 0,
    reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 },
  });
  const requester = AgdxClient.from(requesterTransport, { stream: STREAM });
  return {
    proxy,
    requester,
    async [Symbol.asyncDispose]() {
      await requester.close();
      await agent.shutdown();
      await agentClient.close();
      await requesterTransport.close();
      await agentTransport.close();
      await proxy.close();
      await server.close();
    },
  };
}
const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/**
 * Runs `requests` sequential requests with a fault phase change every `perPhase` requests, then
 * cleans the network, waits `pauseBeforeRecoveryMs` and checks that requests succeed again.
 */
export async function runRequestFaults(seed: number, requests: number, perPhase: number, timeoutMs: number, pauseBeforeRecoveryMs: number): Promise<RequestFaultReport> {
  await using env = await echoBehindProxy(2);
  const { proxy, requester } = env;
  const random = new SeededRandom(seed);
  const conversation = ConversationId.derive('request-faults');
  // The send itself is bounded by the transport (request + connect timeout) before the wait starts.
  const boundMs = timeoutMs + 300 + 300 + 1_000;
  const durations: number[] = [];
  const failed: Record<string, number> = {};
  const untyped: string[] = [];
  let answered = 0;
  let wrong = 0;
  let overBound = 0;
  let phase = 'clean';
  const trace: string[] = [];
  const ask = async (i: number): Promise<boolean> => {
    const body = `q${i}`;
    const t0 = performance.now();
    let ok = false;
    try {
      const reply = await requester.request(
        requester.agdx(AgentTopic.Commands, 'asker', conversation).command(MintUlid.mint(CorrelationId), enc.encode(body)).withTarget(AgentId.new('echo')),
        { replyTopic: AgentTopic.Responses, timeoutMs, verifier: null },
      );
      if (dec(agentMessageBody(reply)) === `echo:${body}`) {
        answered += 1;
        ok = true;
        trace.push(`${phase}:ok`);
      } else {
        wrong += 1;
        trace.push(`${phase}:wrong`);
      }
    } catch (error) {
      if (isBrandedError(error)) {
        const kind = (error as { kind: string }).kind;
        failed[kind] = (failed[kind] ?? 0) + 1;
        trace.push(`${phase}:${kind}`);
      } else {
        if (untyped.length < 5) untyped.push(String(error));
        trace.push(`${phase}:untyped`);
      }
    }
    const took = performance.now() - t0;
    durations.push(took);
    if (took > boundMs) overBound += 1;
    return ok;
  };
  const phases = ['clean', 'silent', 'cut', 'half-close', 'delay', 'refuse'] as const;
  for (let i = 0; i < requests; i++) {
    if (i % perPhase === 0) {
      phase = i === 0 ? 'clean' : random.pick(phases);
      proxy.silent = phase === 'silent';
      proxy.refuse = phase === 'refuse';
      proxy.delayMs = phase === 'delay' ? 50 : 0;
      if (phase === 'cut') proxy.cut();
      if (phase === 'half-close') proxy.halfClose();
    }
    await ask(i);
  }
  proxy.silent = false;
  proxy.refuse = false;
  proxy.delayMs = 0;
  phase = 'after';
  await new Promise((r) => setTimeout(r, pauseBeforeRecoveryMs));
  let recovered = false;
  for (let attempt = 0; attempt < 3 && !recovered; attempt++) recovered = await ask(requests + attempt);
  return { requests, answered, failed, untypedErrors: untyped, overBound, boundMs, requestMs: summarize(durations), wrongAnswers: wrong, recovered, trace };
}

/** What {@link replyHubAfterReaderFailure} saw. */
export interface ReaderFailureReport {
  /** The request before the fault was answered. */
  readonly before: string;
  /** How the wait pending during the silence ended (an error kind). */
  readonly during: string;
  /** The request sent at once after the network came back: `ok` or an error kind. */
  readonly after: string;
}

/**
 * A wait is pending when the requester's network goes silent, so the reply hub's readers fail;
 * the network comes back and a new request is sent at once (within the hub's 200 ms idle grace).
 */
export async function replyHubAfterReaderFailure(): Promise<ReaderFailureReport> {
  await using env = await echoBehindProxy(1);
  const { proxy, requester } = env;
  const conversation = ConversationId.derive('reader-failure');
  const outcome = async (p: Promise<unknown>): Promise<string> => {
    try {
      await p;
      return 'ok';
    } catch (error) {
      return isBrandedError(error) ? (error as { kind: string }).kind : 'untyped';
    }
  };
  const request = (body: string): Promise<unknown> =>
    requester.request(requester.agdx(AgentTopic.Commands, 'asker', conversation).command(MintUlid.mint(CorrelationId), enc.encode(body)).withTarget(AgentId.new('echo')), {
      replyTopic: AgentTopic.Responses,
      timeoutMs: 2_000,
      verifier: null,
    });
  const before = await outcome(request('before'));
    // A wait that no request answers keeps the readers polling while the network goes silent.
  const pending = await requester.replies(AgentTopic.Responses).expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 5_000 });
  proxy.silent = true;
  const during = await outcome(pending.reply);
  proxy.silent = false;
  proxy.cut();
  const after = await outcome(request('after'));
  return { before, during, after };
}
