/**
 * The demo worker with a model: the same summary, but written by a model call made with the AI
 * SDK and recorded with `@agdx/ai-sdk`. The model is the AI SDK's own mock language model, scripted
 * to reason, call the two tools and answer, so the demo still needs no network and no key.
 */

import { AgentTopic, agentMessageBody, type AgentCtx, type AgentMessage } from '@agdx/agents';
import { recordModelStream } from '@agdx/ai-sdk';
import { sessions } from '@agdx/sessions';
import type { JsonPatchOperation } from '@agdx/wire';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { ANSWER, DEMO_TOOL, DemoAgents, REASONING, searchIncidents, WAIT_MS, type WorkerEvents } from './demo-agents.js';
import { decode } from './body-text.js';

const text = new TextEncoder();

/** The scripted model's id, as the response records it (`gen_ai.response.model`). */
export const MOCK_MODEL_ID = 'mock-incident-model';
const APPROVAL_TOOL = 'request_approval';

type Part = { readonly type: string } & Record<string, unknown>;

function finish(unified: string, input: number, output: number): Part {
  return { type: 'finish', finishReason: { unified, raw: unified }, usage: { inputTokens: { total: input, noCache: input }, outputTokens: { total: output, text: output } } };
}

function streamed(kind: 'reasoning' | 'text', id: string, deltas: readonly string[]): Part[] {
  return [{ type: `${kind}-start`, id }, ...deltas.map((delta) => ({ type: `${kind}-delta`, id, delta })), { type: `${kind}-end`, id }];
}

function call(toolCallId: string, toolName: string, input: string): Part[] {
  return [
    { type: 'tool-input-start', id: toolCallId, toolName },
    { type: 'tool-input-delta', id: toolCallId, delta: input },
    { type: 'tool-input-end', id: toolCallId },
    { type: 'tool-call', toolCallId, toolName, input },
  ];
}

// Three model steps: reason and search, ask for approval, answer. Built on use: demo-agents.ts
// imports this module, so its constants are not initialised yet when this module loads.
const script = (): Part[][] => [
  [...streamed('reasoning', 'r1', REASONING), ...call('call-search', DEMO_TOOL, JSON.stringify({ incident: 42 })), finish('tool-calls', 96, 31)],
  [...call('call-approval', APPROVAL_TOOL, JSON.stringify({ question: 'publish the incident 42 summary to #incidents?' })), finish('tool-calls', 158, 18)],
  [...streamed('text', 't1', ANSWER), finish('stop', 201, 24)],
];

function scriptedModel(): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    modelId: MOCK_MODEL_ID,
    doStream: async () => {
      const steps = script();
      const parts = steps[Math.min(step, steps.length - 1)]!;
      step += 1;
      return { stream: convertArrayToReadableStream([{ type: 'response-metadata', id: `step-${step}`, modelId: MOCK_MODEL_ID, timestamp: new Date() }, ...parts]) } as never;
    },
  });
}

/** The worker's `summarize` handler, with the summary written by the (mock) model. */
export async function summarizeWithMockModel(message: AgentMessage, ctx: AgentCtx, events: WorkerEvents): Promise<void> {
  const client = ctx.client;
  const session = sessions(client).open(ctx.conversation);
  const tools = {
    [DEMO_TOOL]: tool({
      description: 'Search the incident tracker',
      inputSchema: jsonSchema<{ incident: number }>({ type: 'object', properties: { incident: { type: 'number' } }, required: ['incident'] }),
      execute: async (input, { toolCallId }) => {
        // The model reasoned before it called the tool: the reasoning stream is on the log by now.
        events.reasoning?.(REASONING);
        const result = searchIncidents(input);
        events.toolCall?.({ id: toolCallId, args: JSON.stringify(input), result });
        return JSON.parse(result) as unknown;
      },
    }),
    [APPROVAL_TOOL]: tool({
      description: 'Ask a human to approve an action',
      inputSchema: jsonSchema<{ question: string }>({ type: 'object', properties: { question: { type: 'string' } }, required: ['question'] }),
      execute: async ({ question }) => {
        const decision = decode(
          await client.agdx(AgentTopic.HumanInput, ctx.agentId, ctx.conversation).requestInput(AgentTopic.HumanInput, text.encode(question), WAIT_MS, { target: DemoAgents.approver }),
        );
        events.approval?.(question, decision);
        if (decision === 'approved') {
          const patch: JsonPatchOperation[] = [
            { op: 'replace', path: '/status', value: 'summarized' },
            { op: 'add', path: '/approvedBy', value: 'approver' },
          ];
          await session.lifecycle.patch(patch, { agent: ctx.agentId });
          events.stateChanged?.(patch, session.lifecycle.document);
        }
        return decision;
      },
    }),
  };
  const question = decode(agentMessageBody(message));
  const result = streamText({ model: scriptedModel(), system: 'You summarize incidents.', prompt: question, tools, stopWhen: stepCountIs(script().length) });
  const outcome = await recordModelStream(result, ctx, {
    price: { inputPerMillion: '0.15', outputPerMillion: '0.60' },
    provider: 'ai-sdk-mock',
    session,
    request: [{ role: 'user', content: question }],
  });
  if (outcome.status !== 'finished') throw new Error(`the model call ${outcome.status}: ${String(outcome.error)}`);
  events.chat?.(ANSWER);
  events.modelCall?.(`${outcome.modelId ?? '?'}, ${outcome.steps} steps, ${outcome.usage?.inputTokens ?? 0n} in / ${outcome.usage?.outputTokens ?? 0n} out tokens, cost ${outcome.usage?.costMicros ?? 0n} micro-units`);
}
