/**
 * The demo's three agents: a planner that delegates, a worker that reasons, calls a tool, asks
 * for approval, changes state and streams its answer, and an approver that stands in for a human.
 */

import { Agent, AgentTopic, agentMessageBody, type AgdxClient, type AgentCtx, type AgentHandle, type AgentMessage } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { UsageError } from '../errors.js';
import { AgentId, CorrelationId, MintUlid, type JsonPatchOperation } from '@agdx/wire';
import { decode } from './body-text.js';

const text = new TextEncoder();

/** The demo's agent ids. */
export const DemoAgents: {
  readonly planner: AgentId;
  readonly worker: AgentId;
  readonly approver: AgentId;
  readonly operator: AgentId;
} = {
  planner: AgentId.new('planner'),
  worker: AgentId.new('worker'),
  approver: AgentId.new('approver'),
  operator: AgentId.new('operator'),
};

/** The tool the worker calls. */
export const DEMO_TOOL = 'search_incidents';

/** What the worker reports while it handles the planner's command, for the transcript. */
export interface WorkerEvents {
  /** The reasoning chunks were streamed. */
  reasoning?(chunks: readonly string[]): void;
  /** The tool call went out and came back. */
  toolCall?(call: { readonly id: string; readonly args: string; readonly result: string }): void;
  /** The approver answered. */
  approval?(prompt: string, decision: string): void;
  /** The session state was patched. */
  stateChanged?(patch: unknown, document: unknown): void;
  /** The chat answer was streamed. */
  chat?(chunks: readonly string[]): void;
  /** With a model: which model answered, its steps, usage and cost. */
  modelCall?(summary: string): void;
}

/** Settings of {@link spawnDemoAgents}. */
export interface DemoAgentOptions {
  /** The worker writes its summary with a model call (the AI SDK's mock model) recorded by `@agdx/ai-sdk`. */
  readonly mockModel?: boolean | undefined;
}

/** Timeouts the agents use while waiting on each other (short: the demo must end quickly). */
export const WAIT_MS = 20_000;

/** The worker's reasoning chunks. */
export const REASONING: readonly string[] = ['Incident 42 mentions login failures; ', 'the ticket has three comments, ', 'so search them before summarizing.'];
/** The worker's answer chunks. */
export const ANSWER: readonly string[] = ['Incident 42 ', 'is a login bug ', 'caused by an expired certificate; ', 'it is fixed and verified.'];

/** A deterministic stand-in for a tool: the demo never calls a model or the network. */
export function searchIncidents(args: { readonly incident: number }): string {
  return JSON.stringify({ incident: args.incident, comments: 3, topHit: 'certificate expired on auth-2' });
}

async function summarize(message: AgentMessage, ctx: AgentCtx, events: WorkerEvents): Promise<void> {
  const client = ctx.client;
  const conversation = ctx.conversation;
  const session = sessions(client).open(conversation);

  const reasoning = ctx.stream('reasoning');
  for (const chunk of REASONING) await reasoning.write(text.encode(chunk));
  await reasoning.finish('stop');
  events.reasoning?.(REASONING);

  // The tool call: its arguments stream as tool_args chunks under the call's own correlation, the
  // tool runs, and its result is a response naming the tool (AG-UI shows TOOL_CALL_* events).
  const args = JSON.stringify({ incident: 42 });
  const call = MintUlid.mint(CorrelationId);
  const toolArgs = client.agdx(AgentTopic.Sessions, ctx.agentId, conversation).stream(call, 'tool_args').withTool(DEMO_TOOL);
  await toolArgs.write(text.encode(args));
  await toolArgs.finish('stop');
  await session.append('tool.call', text.encode(`${DEMO_TOOL}(${args})`));
  const result = searchIncidents({ incident: 42 });
  // The result answers the call's correlation; AG-UI pairs it with the argument stream that
  // correlation opened, so TOOL_CALL_RESULT names the same tool call as TOOL_CALL_START.
  await client.agdx(AgentTopic.Sessions, ctx.agentId, conversation).respond(call, text.encode(result)).withTool(DEMO_TOOL).send();
  await session.append('tool.result', text.encode(result));
  events.toolCall?.({ id: call.toString(), args, result });

  // A human decision: the prompt is addressed to the approver only, on the human-input topic.
  const prompt = 'publish the incident 42 summary to #incidents?';
  const decision = await client
    .agdx(AgentTopic.HumanInput, ctx.agentId, conversation)
    .requestInput(AgentTopic.HumanInput, text.encode(prompt), WAIT_MS, { target: DemoAgents.approver });
  // The prompt and the decision live on agent.human_input, so the session already reads both as
  // human.input turns.
  events.approval?.(prompt, decode(decision));

  const patch: JsonPatchOperation[] = [
    { op: 'replace', path: '/status', value: 'summarized' },
    { op: 'add', path: '/approvedBy', value: 'approver' },
  ];
  await session.lifecycle.patch(patch, { agent: ctx.agentId });
  events.stateChanged?.(patch, session.lifecycle.document);

  const chat = ctx.stream('chat');
  for (const chunk of ANSWER) await chat.write(text.encode(chunk));
  await chat.finish('stop', { inputTokens: BigInt(agentMessageBody(message).length), outputTokens: BigInt(Math.ceil(ANSWER.join('').length / 4)) });
  events.chat?.(ANSWER);
  await session.append('model.response', text.encode(ANSWER.join('')));
  await ctx.respond(text.encode(ANSWER.join('')));
}

/** The worker's answer to a bridge call (A2A `chat` or an MCP tool): one response. */
async function answerBridge(message: AgentMessage, ctx: AgentCtx): Promise<void> {
  const envelope = message.envelope;
  const via = envelope?.tool !== undefined ? `MCP tool ${envelope.tool}` : `A2A ${envelope?.operation ?? 'call'}`;
  await ctx.respond(text.encode(`worker: all systems nominal (asked through ${via}: ${decode(agentMessageBody(message))})`));
}

/** Spawns the planner, the worker and the approver on `client` and waits until they are ready. */
export async function spawnDemoAgents(client: AgdxClient, events: WorkerEvents, options: DemoAgentOptions = {}): Promise<{ planner: AgentHandle; worker: AgentHandle; approver: AgentHandle }> {
  const worker = Agent.builder()
    .id(DemoAgents.worker)
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .retry({ maxAttempts: 1, baseDelayMs: 10 })
    .heartbeats(false)
    .pollInterval(10)
    .handler({
      handle: (message, ctx) => {
        if (message.envelope?.operation !== 'summarize') return answerBridge(message, ctx);
        return options.mockModel === true ? summarizeWithMockModelLoaded(message, ctx, events) : summarize(message, ctx, events);
      },
    })
    .build()
    .spawn(client);

  // The planner serves only `plan`, so bridge calls and prompts on the lane never reach it.
  const planner = Agent.builder()
    .id(DemoAgents.planner)
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .serves(['plan'])
    .retry({ maxAttempts: 1, baseDelayMs: 10 })
    .heartbeats(false)
    .pollInterval(10)
    .handler({
      handle: async (message, ctx) => {
        const ask = ctx.client
          .agdx(AgentTopic.Sessions, ctx.agentId, ctx.conversation)
          .command(MintUlid.mint(CorrelationId), text.encode(`summarize: ${decode(agentMessageBody(message))}`))
          .withOperation('summarize')
          .withTarget(DemoAgents.worker);
        const reply = await ctx.client.request(ask, { replyTopic: AgentTopic.Sessions, timeoutMs: WAIT_MS });
        await ctx.respond(agentMessageBody(reply));
      },
    })
    .build()
    .spawn(client);

  const approver = Agent.builder()
    .id(DemoAgents.approver)
    .listenOn(AgentTopic.HumanInput)
    .retry({ maxAttempts: 1, baseDelayMs: 10 })
    .heartbeats(false)
    .pollInterval(10)
    // agent.human_input also carries the session's human.input turns (plain records): only a
    // prompt, an AGDX command with a correlation, gets a decision.
    .handler({
      handle: async (message, ctx) => {
        if (message.envelope?.kind !== 'command' || message.envelope.correlation === undefined) return;
        await ctx.respondInput(AgentTopic.HumanInput, text.encode('approved'));
      },
    })
    .build()
    .spawn(client);

  await Promise.all([worker.ready(), planner.ready(), approver.ready()]);
  return { planner, worker, approver };
}

/**
 * Loads the mock-model worker only when `--mock-model` asks for it: the AI SDK is an optional
 * peer of the CLI (it declares Node 22, and every other command runs without it).
 */
async function summarizeWithMockModelLoaded(...args: Parameters<typeof import('./mock-model-worker.js').summarizeWithMockModel>): ReturnType<typeof import('./mock-model-worker.js').summarizeWithMockModel> {
  let worker: typeof import('./mock-model-worker.js');
  try {
    worker = await import('./mock-model-worker.js');
  } catch (error) {
    throw new UsageError('agdx demo --mock-model needs the optional packages `ai` and `@agdx/ai-sdk`: install them beside @agdx/cli', { cause: error });
  }
  return worker.summarizeWithMockModel(...args);
}
