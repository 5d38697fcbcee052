import { Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { agentTool, MAX_TOOL_ERROR_MESSAGE_BYTES } from '@agdx/ai-sdk';
import { AgdxError, AgentEnvelope, AgentErrorCode, AgentId, ContentType, MintUlid, RecordId } from '@agdx/wire';
import { jsonSchema, stepCountIs, streamText, type JSONSchema7, type Tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { decode, envelopes, memoryClient, text } from './support/log.js';
import { finish, scriptedModel, textParts } from './support/mock-model.js';

const citySchema: JSONSchema7 = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

async function weatherAgent() {
  const { laser, log } = await memoryClient();
  const agent = Agent.builder()
    .id(AgentId.new('weather-agent'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler({
      handle: async (message, ctx) => {
        const { city } = JSON.parse(decode(agentMessageBody(message))) as { city: string };
        if (city === 'Atlantis') return ctx.fail({ code: AgentErrorCode.ToolFailure, message: 'no such city', retryable: false });
        return ctx.respond(text.encode(`${city}: 3 °C`));
      },
    })
    .build()
    .spawn(laser);
  await agent.ready();
  return { laser, log, agent };
}

function execute(toolDef: Tool<unknown, unknown>, input: unknown, abortSignal?: AbortSignal, toolCallId = 'call-9'): Promise<unknown> {
  return Promise.resolve(toolDef.execute!(input, { toolCallId, messages: [], abortSignal, context: {} } as never));
}

describe('agentTool: an AGDX agent as an AI SDK tool', () => {
  it('lets a model call an agent and gives the agent reply back to the model', async () => {
    const { laser, log, agent } = await weatherAgent();
    const model = scriptedModel([
      [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Oslo"}' }, finish('tool-calls')],
      [...textParts('t', 'It is 3 °C in Oslo.'), finish('stop')],
    ]);
    const weather = agentTool(laser, { agent: 'weather-agent', source: 'assistant', inputSchema: citySchema, description: 'Current weather', operation: 'weather', timeoutMs: 10_000 });
    const result = streamText({ model, prompt: 'Weather in Oslo?', tools: { weather }, stopWhen: stepCountIs(3) });
    expect(await result.text).toBe('It is 3 °C in Oslo.');
    await agent.shutdown();

    // The second model call sees the agent's reply as the tool result.
    const secondPrompt = JSON.stringify(model.doStreamCalls[1]!.prompt);
    expect(secondPrompt).toContain('Oslo: 3 °C');
    const command = (await envelopes(log, AgentTopic.Sessions)).find((e) => e.kind === 'command')!;
    expect(command.target?.value).toBe('weather-agent');
    expect(command.source.value).toBe('assistant');
    expect(command.operation).toBe('weather');
    expect(command.metadata?.get('gen_ai.tool.call.id')).toBe('call-1');
    expect(JSON.parse(decode(command.body))).toEqual({ city: 'Oslo' });
  });

  it('calls the agent even when the model gives a call id too long to record, leaving the id out', async () => {
    const { laser, log, agent } = await weatherAgent();
    const weather = agentTool(laser, { agent: 'weather-agent', source: 'assistant', inputSchema: citySchema, timeoutMs: 10_000 });
    expect(await execute(weather, { city: 'Oslo' }, undefined, 'c'.repeat(5_000))).toBe('Oslo: 3 °C');
    await agent.shutdown();
    const command = (await envelopes(log, AgentTopic.Sessions)).find((e) => e.kind === 'command')!;
    expect(command.metadata?.get('gen_ai.tool.call.id')).toBeUndefined();
  });

  it('turns an error reply into a RejectedError the AI SDK reports as a tool error', async () => {
    const { laser, agent } = await weatherAgent();
    const weather = agentTool(laser, { agent: 'weather-agent', source: 'assistant', inputSchema: jsonSchema(citySchema), timeoutMs: 10_000 });
    const error = await execute(weather, { city: 'Atlantis' }).then(() => undefined, (e: unknown) => e);
    await agent.shutdown();
    expect(AgdxError.is(error, 'rejected')).toBe(true);
    expect((error as AgdxError).message).toBe('no such city');
    expect((error as AgdxError).context).toMatchObject({ agent: 'weather-agent', code: AgentErrorCode.ToolFailure });
  });

  it('gives the model at most MAX_TOOL_ERROR_MESSAGE_BYTES of an error message, cut between code points, and says how long it was', async () => {
    const { laser } = await memoryClient();
    // 'é' is two UTF-8 bytes, so the cap (an even number) falls after a whole one only if the cut respects code points.
    const long = `x${'é'.repeat(50_000)}`;
    const failing = Agent.builder()
      .id(AgentId.new('verbose-agent'))
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .handler({ handle: async (_message, ctx) => ctx.fail({ code: AgentErrorCode.ToolFailure, message: long, retryable: false }) })
      .build()
      .spawn(laser);
    await failing.ready();
    const verbose = agentTool(laser, { agent: 'verbose-agent', source: 'assistant', inputSchema: citySchema, timeoutMs: 10_000 });
    const error = (await execute(verbose, { city: 'Oslo' }).then(() => undefined, (e: unknown) => e)) as AgdxError;
    await failing.shutdown();
    expect(AgdxError.is(error, 'rejected')).toBe(true);
    const kept = error.message.slice(0, error.message.indexOf('…'));
    expect(new TextEncoder().encode(kept).length).toBeLessThanOrEqual(MAX_TOOL_ERROR_MESSAGE_BYTES);
    expect(kept).toBe(long.slice(0, kept.length));
    expect(kept.length).toBeGreaterThan(MAX_TOOL_ERROR_MESSAGE_BYTES / 2 - 2);
    expect(error.message).toMatch(/… \(\d+ more bytes\)$/);
    expect(error.context).toMatchObject({ agent: 'verbose-agent', messageBytes: 100_001 });
  });

  it('parses a JSON reply and times out when nobody answers', async () => {
    const { laser } = await memoryClient();
    // A worker that answers with JSON through the send builder.
    const json = Agent.builder()
      .id(AgentId.new('json-agent'))
      .listenOn(AgentTopic.Sessions)
      .handler({
        handle: async (message, ctx) => {
          const envelope = message.envelope!;
          await ctx.client.agdx(AgentTopic.Sessions, ctx.agent, ctx.conversation).respond(envelope.correlation!, text.encode('{"celsius":3}')).contentType(ContentType.json).withTarget(envelope.source).send();
        },
      })
      .build()
      .spawn(laser);
    await json.ready();
    const parsed = agentTool(laser, { agent: 'json-agent', source: 'assistant', inputSchema: citySchema, timeoutMs: 10_000 });
    expect(await execute(parsed, { city: 'Oslo' })).toEqual({ celsius: 3 });
    await json.shutdown();

    const silent = agentTool(laser, { agent: 'nobody', source: 'assistant', inputSchema: citySchema, timeoutMs: 50 });
    expect(AgdxError.is(await execute(silent, { city: 'Oslo' }).then(() => undefined, (e: unknown) => e), 'timeout')).toBe(true);
    const controller = new AbortController();
    const waiting = execute(agentTool(laser, { agent: 'nobody', source: 'assistant', inputSchema: citySchema, timeoutMs: 60_000 }), { city: 'Oslo' }, controller.signal);
    controller.abort();
    expect(AgdxError.is(await waiting.then(() => undefined, (e: unknown) => e), 'cancelled')).toBe(true);
  });

  it('gives text replies back as sent, a leading U+FEFF included, and reads JSON replies with or without a byte order mark', async () => {
    const { laser } = await memoryClient();
    // The input names the reply: its body and content type, or an error whose body is plain text.
    const echo = Agent.builder()
      .id(AgentId.new('echo-agent'))
      .listenOn(AgentTopic.Sessions)
      .handler({
        handle: async (message, ctx) => {
          const envelope = message.envelope!;
          const { body, json, error } = JSON.parse(decode(agentMessageBody(message))) as { body: string; json?: boolean; error?: boolean };
          if (error === true) {
            const failure = AgentEnvelope.error(MintUlid.mint(RecordId), ctx.conversation, ctx.agent, envelope.correlation!, text.encode(body)).with({ target: envelope.source });
            await ctx.client.publish(AgentTopic.Sessions, failure, ContentType.raw);
            return;
          }
          await ctx.client
            .agdx(AgentTopic.Sessions, ctx.agent, ctx.conversation)
            .respond(envelope.correlation!, text.encode(body))
            .contentType(json === true ? ContentType.json : ContentType.raw)
            .withTarget(envelope.source)
            .send();
        },
      })
      .build()
      .spawn(laser);
    await echo.ready();
    const tool = agentTool(laser, { agent: 'echo-agent', source: 'assistant', inputSchema: { type: 'object' }, timeoutMs: 10_000 });
    expect(await execute(tool, { body: '\ufeffOslo: 3 °C' })).toBe('\ufeffOslo: 3 °C');
    expect(await execute(tool, { body: 'Os\ufefflo' })).toBe('Os\ufefflo');
    expect(await execute(tool, { body: '{"city":"\ufeffOslo"}', json: true })).toEqual({ city: '\ufeffOslo' });
    expect(await execute(tool, { body: '\ufeff{"celsius":3}', json: true })).toEqual({ celsius: 3 });
    const error = await execute(tool, { body: '\ufeffbroken', error: true }).then(() => undefined, (e: unknown) => e);
    expect(AgdxError.is(error, 'rejected')).toBe(true);
    expect((error as AgdxError).message).toBe('\ufeffbroken');
    await echo.shutdown();
  });

  it('refuses bad options at once', async () => {
    const { laser } = await memoryClient();
    const base = { agent: 'a', source: 'b', inputSchema: citySchema, timeoutMs: 1_000 };
    for (const bad of [{ ...base, timeoutMs: 0 }, { ...base, timeoutMs: Number.NaN }, { ...base, topic: '' }, { ...base, inputSchema: 'schema' }, { ...base, conversation: 'c' }, { ...base, agent: 7 }]) {
      expect(() => agentTool(laser, bad as never)).toThrow(expect.objectContaining({ kind: 'invalid' }));
    }
  });
});
