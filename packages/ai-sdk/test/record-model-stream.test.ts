import { Agent, AgentTopic, agentMessageBody, type AgentCtx } from '@agdx/agents';
import { recordModelStream, type ModelStreamOutcome } from '@agdx/ai-sdk';
import { AgentErrorCode, AgentId, ContentType, ConversationId, CorrelationId, decodeAgentErrorBody, MintUlid } from '@agdx/wire';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { channels, decode, envelopes, memoryClient, text } from './support/log.js';
import { finish, reasoningParts, scriptedModel, textParts, toolCallParts } from './support/mock-model.js';

const weather = tool({
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }) => {
    if (city === 'Rome') throw new Error('no station in Rome');
    return { city, celsius: 3 };
  },
});

// Step 1: reasoning, text and two streamed tool calls; step 2: the answer.
const twoSteps = [
  [...reasoningParts('r1', 'The user wants ', 'two cities.'), ...textParts('t1', 'Let me ', 'check.'), ...toolCallParts('call-1', 'weather', '{"city":', '"Oslo"}'), ...toolCallParts('call-2', 'weather', '{"city":"Rome"}'), finish('tool-calls', 100, 40, 12)],
  [...textParts('t2', 'Oslo is 3 °C; ', 'Rome has no data.'), finish('stop', 150, 20)],
];

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 2_000; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not reached');
}

async function writerAgent(handle: (ctx: AgentCtx) => Promise<ModelStreamOutcome>) {
  const { laser, log } = await memoryClient();
  const outcomes: ModelStreamOutcome[] = [];
  const agent = Agent.builder()
    .id(AgentId.new('writer'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler({ handle: async (_message, ctx) => void outcomes.push(await handle(ctx)) })
    .build()
    .spawn(laser);
  await agent.ready();
  const ask = (prompt: string) => {
    const request = laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode(prompt)).withTarget('writer');
    return { request, reply: laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 }) };
  };
  return { laser, log, agent, outcomes, ask };
}

describe('recordModelStream: a model call inside an agent', () => {
  it('writes reasoning, text and tool arguments as chunk streams, tool results as records, and answers with usage, cost and model id', async () => {
    const { log, agent, outcomes, ask } = await writerAgent(async (ctx) => {
      const result = streamText({ model: scriptedModel(twoSteps), prompt: decode(agentMessageBody(ctx.message)), tools: { weather }, stopWhen: stepCountIs(3) });
      return recordModelStream(result, ctx, { price: { inputPerMillion: '2.50', outputPerMillion: '10' }, provider: 'mock' });
    });
    const { request, reply } = ask('weather in Oslo and Rome?');
    const answer = await reply;
    await agent.shutdown();

    // The requester's wait resolves with the response, not with a tool record.
    expect(answer.envelope?.kind).toBe('response');
    expect(decode(agentMessageBody(answer))).toBe('Oslo is 3 °C; Rome has no data.');
    expect(answer.envelope?.operation).toBe('chat');
    expect(answer.envelope?.finishReason).toBe('stop');
    expect(answer.envelope?.target?.value).toBe('planner');
    expect(answer.envelope?.cause?.equals(request.recordId)).toBe(true);
    expect(answer.envelope?.metadata?.get('gen_ai.response.model')).toBe('mock-model-1');
    expect(answer.envelope?.metadata?.get('gen_ai.provider.name')).toBe('mock');
    // 250 input tokens at 2.50 and 60 output tokens at 10 per million: 625 + 600 micro-units.
    expect(answer.envelope?.usage).toMatchObject({ inputTokens: 250n, outputTokens: 60n, reasoningOutputTokens: 12n, costMicros: 1225n });

    const all = await envelopes(log, AgentTopic.Sessions);
    const streams = channels(all);
    expect(streams.map((s) => [s.purpose, s.tool ?? null, s.text, s.finishReason])).toEqual([
      ['reasoning', null, 'The user wants two cities.', 'stop'],
      ['chat', null, 'Let me check.', 'tool_calls'],
      ['tool_args', 'weather', '{"city":"Oslo"}', 'stop'],
      ['tool_args', 'weather', '{"city":"Rome"}', 'stop'],
      ['chat', null, 'Oslo is 3 °C; Rome has no data.', 'stop'],
    ]);
    // One chunk per delta plus the terminal: nothing dropped, nothing merged.
    expect(streams.map((s) => s.chunks)).toEqual([3, 3, 3, 2, 3]);
    // The step's usage rides the terminal chunk of its text stream.
    expect(streams[1]!.usage).toMatchObject({ inputTokens: 100n, outputTokens: 40n, reasoningOutputTokens: 12n });
    const chunks = all.filter((e) => e.kind === 'chunk');
    expect(chunks.every((e) => e.correlation?.equals(request.correlation!) && e.target?.value === 'planner')).toBe(true);

    // Tool records are written as the tools finish, so they are compared in call order.
    const callId = (e: (typeof all)[number]) => String(e.metadata?.get('gen_ai.tool.call.id'));
    const toolRecords = all.filter((e) => e.operation === 'execute_tool').sort((a, b) => callId(a).localeCompare(callId(b)));
    expect(toolRecords.map((e) => [e.kind, e.tool, e.metadata?.get('gen_ai.tool.call.id')])).toEqual([
      ['response', 'weather', 'call-1'],
      ['error', 'weather', 'call-2'],
    ]);
    expect(JSON.parse(decode(toolRecords[0]!.body))).toEqual({ city: 'Oslo', celsius: 3 });
    expect(decodeAgentErrorBody(toolRecords[1]!.body)).toMatchObject({ code: AgentErrorCode.ToolFailure, message: 'no station in Rome' });
    // Tool records answer their own call, so they never settle the requester's wait.
    expect(toolRecords.some((e) => e.correlation?.equals(request.correlation!))).toBe(false);

    const outcome = outcomes[0]!;
    expect(outcome).toMatchObject({ status: 'finished', finishReason: 'stop', modelId: 'mock-model-1', steps: 2, text: 'Oslo is 3 °C; Rome has no data.' });
    expect(outcome.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
  });

  it('ends the open chunk streams with an error record when the model fails mid-stream', async () => {
    const failing = [[...reasoningParts('r1', 'hmm'), { type: 'text-start', id: 't1' }, { type: 'text-delta', id: 't1', delta: 'Half an ans' }, { type: 'error', error: new Error('upstream 529: overloaded') }]];
    const { log, agent, outcomes, ask } = await writerAgent(async (ctx) => {
      const result = streamText({ model: scriptedModel(failing), prompt: 'x', onError: () => undefined });
      return recordModelStream(result, ctx);
    });
    const { reply } = ask('go');
    const answer = await reply;
    await agent.shutdown();

    expect(answer.envelope?.kind).toBe('error');
    expect(decodeAgentErrorBody(answer.envelope!.body)).toMatchObject({ code: AgentErrorCode.Internal, message: 'the model call failed: upstream 529: overloaded' });
    const streams = channels(await envelopes(log, AgentTopic.Sessions));
    expect(streams.map((s) => [s.purpose, s.text, s.finishReason ?? null])).toEqual([
      ['reasoning', 'hmm', 'stop'],
      ['chat', 'Half an ans', null],
    ]);
    expect(decodeAgentErrorBody(streams[1]!.failed!)).toMatchObject({ code: AgentErrorCode.Internal });
    expect(outcomes[0]).toMatchObject({ status: 'failed', finishReason: 'error', response: undefined });
    expect((outcomes[0]!.error as Error).message).toBe('upstream 529: overloaded');
  });

  it('ends the open chunk streams with a Cancelled error when the model call is aborted', async () => {
    const { log, agent, outcomes, ask } = await writerAgent(async (ctx) => {
      const controller = new AbortController();
      let pulled = 0;
      const model = scriptedModel([[]]);
      model.doStream = async () => ({
        stream: new ReadableStream({
          async pull(stream) {
            pulled += 1;
            if (pulled === 1) stream.enqueue({ type: 'text-start', id: 't1' });
            else if (pulled <= 3) stream.enqueue({ type: 'text-delta', id: 't1', delta: `part ${pulled} ` });
            else {
              // The user gives up while the model is still talking, once both deltas are on the log.
              await until(async () => (await envelopes(ctx.client.transport, AgentTopic.Sessions)).filter((e) => e.kind === 'chunk').length === 2);
              controller.abort();
              await new Promise<void>(() => undefined);
            }
          },
        }),
      }) as never;
      const result = streamText({ model, prompt: 'x', abortSignal: controller.signal });
      return recordModelStream(result, ctx);
    });
    const answer = await ask('go').reply;
    await agent.shutdown();

    expect(answer.envelope?.kind).toBe('error');
    expect(decodeAgentErrorBody(answer.envelope!.body)).toMatchObject({ code: AgentErrorCode.Cancelled });
    const [chat] = channels(await envelopes(log, AgentTopic.Sessions));
    expect(chat).toMatchObject({ purpose: 'chat', text: 'part 2 part 3 ', finishReason: undefined });
    expect(chat!.failed).toBeDefined();
    expect(outcomes[0]).toMatchObject({ status: 'aborted', finishReason: 'cancelled' });
  });
});

describe('recordModelStream: a send target', () => {
  it('records to a topic of its own choosing and answers the given correlation', async () => {
    const { laser, log } = await memoryClient();
    const correlation = MintUlid.mint(CorrelationId);
    const send = laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new());
    const result = streamText({ model: scriptedModel([[...textParts('t', 'hi'), finish('length', 3, 1)]], 'mock-2'), prompt: 'x' });
    const outcome = await recordModelStream(result, { send, correlation, target: 'planner' }, { requestModel: 'mock-latest' });
    expect(outcome).toMatchObject({ status: 'finished', finishReason: 'length', text: 'hi' });
    const all = await envelopes(log, AgentTopic.Streams);
    const response = all.find((e) => e.kind === 'response')!;
    expect(response.correlation?.equals(correlation)).toBe(true);
    expect(response.target?.value).toBe('planner');
    expect(response.metadata?.get('gen_ai.request.model')).toBe('mock-latest');
    expect(response.metadata?.get('gen_ai.response.model')).toBe('mock-2');
    expect(response.usage).toEqual({ inputTokens: 3n, outputTokens: 1n });
    expect(channels(all)[0]).toMatchObject({ purpose: 'chat', text: 'hi', finishReason: 'length' });
    expect(ContentType.raw).toBe(0);
  });
});
