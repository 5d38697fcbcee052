import { Agent, agentMessageBody, AgentTopic } from '@agdx/agents';
import { ConversationId, CorrelationId, MintUlid, AgentId, TaskState } from '@agdx/wire';
import { HttpAgent, type AssistantMessage } from '@ag-ui/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ANSWER_EVENT_TYPES, newLog, writeAnswer } from './support/scenario.js';
import { sleep, startServer } from './support/server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('official @ag-ui/client HttpAgent against the live endpoint', () => {
  it('consumes a streamed answer with reasoning, a tool call and state changes, in order', async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler());
    closers.push(server.close);
    const conversation = ConversationId.new();
    const agent = new HttpAgent({ url: `${server.url}/agui`, threadId: conversation.toString() });
    const seen: string[] = [];
    const errors: unknown[] = [];
    const running = agent.runAgent(
      {},
      {
        onEvent: ({ event }) => {
          seen.push(event.type);
        },
        onRunFailed: ({ error }) => {
          errors.push(error);
        },
      },
    );
    // The answer is written while the agent is already listening.
    await sleep(20);
    const { correlation, toolCall } = await writeAnswer(laser, bridge, conversation, () => sleep(2));
    const result = await running;
    expect(errors).toEqual([]);
    // HttpAgent's run id is its own; the log's RUN_STARTED is folded into it.
    expect(seen).toEqual(ANSWER_EVENT_TYPES);
    expect(agent.state).toEqual({ step: 'done', count: 1 });
    const messages = result.newMessages;
    const reasoning = messages.find((m) => m.role === 'reasoning');
    expect(reasoning?.content).toBe('The user wants the weather.');
    const withCall = messages.find((m): m is AssistantMessage => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0);
    expect(withCall?.toolCalls?.[0]).toMatchObject({ id: toolCall.toString(), function: { name: 'weather', arguments: '{"city":"Oslo"}' } });
    const tool = messages.find((m) => m.role === 'tool');
    // HttpAgent links the tool message to the assistant's tool call by id.
    expect(tool).toMatchObject({ toolCallId: toolCall.toString(), content: '{"temp":21}' });
    const answer = messages.find((m) => m.role === 'assistant' && m.content === 'It is 21 °C in Oslo.');
    expect(answer).toBeDefined();
    expect(messages.indexOf(reasoning!)).toBeLessThan(messages.indexOf(answer!));
  });

  it('rejects the run with the RUN_ERROR of a failed task', async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler());
    closers.push(server.close);
    const conversation = ConversationId.new();
    await writeAnswer(laser, bridge, conversation, async () => undefined, 'Failed');
    const agent = new HttpAgent({ url: `${server.url}/agui`, threadId: conversation.toString() });
    const runErrors: string[] = [];
    await agent.runAgent({}, { onRunErrorEvent: ({ event }) => void runErrors.push(event.message) }).catch(() => undefined);
    expect(runErrors).toEqual(['weather service down']);
    expect(agent.state).toEqual({ step: 'done', count: 1 });
  });

  it('follows the task named by runId when the conversation holds several', async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler());
    closers.push(server.close);
    const conversation = ConversationId.new();
    const send = laser.agdx(AgentTopic.Sessions, AgentId.new('a'), conversation);
    const first = MintUlid.mint(CorrelationId);
    const second = MintUlid.mint(CorrelationId);
    await send.status('task').withCorrelation(first).withTaskState(TaskState.Submitted).send();
    await send.fail(first, { code: 1, message: 'first task broke', retryable: false }).send();
    await send.status('task').withCorrelation(second).withTaskState(TaskState.Submitted).send();
    const chat = send.stream(second, 'chat');
    await chat.write(new TextEncoder().encode('second answer'));
    await chat.finish('stop');
    await send.status('task').withCorrelation(second).withTaskState(TaskState.Completed).send();
    const agent = new HttpAgent({ url: `${server.url}/agui`, threadId: conversation.toString() });
    const seen: string[] = [];
    const result = await agent.runAgent({ runId: second.toString() }, { onEvent: ({ event }) => void seen.push(event.type) });
    expect(seen).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    expect(result.newMessages.map((m) => m.content)).toEqual(['second answer']);
  });

  it('ends a run on a thread whose turn ended with a plain answer (no task status), after the whole history', async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler());
    closers.push(server.close);
    const conversation = ConversationId.new();
    const user = laser.agdx(AgentTopic.Sessions, AgentId.new('user'), conversation);
    const agent = laser.agdx(AgentTopic.Sessions, AgentId.new('assistant'), conversation);
    const encode = (value: string) => new TextEncoder().encode(value);
    // Two turns: each a command answered by a response; a tool call inside the second.
    const first = MintUlid.mint(CorrelationId);
    await user.command(first, encode('"hello"')).send();
    await agent.respond(first, encode('hi')).send();
    const second = MintUlid.mint(CorrelationId);
    await user.command(second, encode('"weather?"')).send();
    const call = MintUlid.mint(CorrelationId);
    await agent.command(call, encode('{"city":"Oslo"}')).withTool('weather').send();
    await agent.respond(call, encode('{"temp":21}')).withTool('weather').send();
    const chat = agent.stream(second, 'chat');
    await chat.write(encode('21 °C'));
    await chat.finish('stop');
    await agent.respond(second, encode('21 °C')).send();
    const http = new HttpAgent({ url: `${server.url}/agui`, threadId: conversation.toString() });
    const seen: string[] = [];
    const result = await http.runAgent({}, { onEvent: ({ event }) => void seen.push(event.type) });
    expect(seen[0]).toBe('RUN_STARTED');
    expect(seen.at(-1)).toBe('RUN_FINISHED');
    expect(seen).toContain('TOOL_CALL_RESULT');
    expect(result.newMessages.some((m) => m.content === '21 °C')).toBe(true);
  });

  it('waits for the open turn of a thread, and ends it with RUN_ERROR code timeout past runTimeoutMs', async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler({ runTimeoutMs: 5_000 }));
    closers.push(server.close);
    const conversation = ConversationId.new();
    const user = laser.agdx(AgentTopic.Sessions, AgentId.new('user'), conversation);
    const open = MintUlid.mint(CorrelationId);
    await user.command(open, new TextEncoder().encode('"still there?"')).send();
    const http = new HttpAgent({ url: `${server.url}/agui`, threadId: conversation.toString() });
    const seen: string[] = [];
    const running = http.runAgent({}, { onEvent: ({ event }) => void seen.push(event.type) });
    // The turn is open: the run starts and is still going after the replay of the history.
    await vi.waitFor(() => expect(seen).toEqual(['RUN_STARTED']), { timeout: 10_000, interval: 20 });
    await sleep(100);
    expect(seen).toEqual(['RUN_STARTED']);
    await laser.agdx(AgentTopic.Sessions, AgentId.new('assistant'), conversation).respond(open, new TextEncoder().encode('yes')).send();
    await running;
    expect(seen).toEqual(['RUN_STARTED', 'RUN_FINISHED']);

    const stuck = await startServer(bridge.handler({ runTimeoutMs: 150 }));
    closers.push(stuck.close);
    const idle = ConversationId.new();
    await laser.agdx(AgentTopic.Sessions, AgentId.new('user'), idle).command(MintUlid.mint(CorrelationId), new TextEncoder().encode('"anyone?"')).send();
    const errors: { message: string; code?: string | undefined }[] = [];
    await new HttpAgent({ url: `${stuck.url}/agui`, threadId: idle.toString() })
      .runAgent({}, { onRunErrorEvent: ({ event }) => void errors.push({ message: event.message, code: event.code }) })
      .catch(() => undefined);
    expect(errors).toEqual([{ message: expect.stringContaining('did not end within 150 ms'), code: 'timeout' }]);
  });

  it('refuses a RunAgentInput the AG-UI schema rejects with 400 naming the field', async () => {
    const { bridge } = await newLog();
    const handler = bridge.handler();
    const response = await handler(
      new Request('http://h/agui', { method: 'POST', body: JSON.stringify({ threadId: ConversationId.new().toString(), runId: 'r', messages: [{ role: 'user' }] }) }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { kind: string; message: string } };
    expect(body.error.kind).toBe('invalid');
    expect(body.error.message).toContain('messages.0');
  });
});

describe('a run that HttpAgent starts (startRuns)', () => {
  it('publishes the user message as a command and ends with RUN_FINISHED when it is answered', async () => {
    const { laser, bridge } = await newLog();
    const topic = AgentTopic.Commands;
    const seenBodies: string[] = [];
    const worker = Agent.builder()
      .id(AgentId.new('assistant'))
      .listenOn(topic)
      .respondOn(topic)
      .handler({
        handle: async (message, ctx) => {
          const body = new TextDecoder().decode(agentMessageBody(message));
          seenBodies.push(body);
          await ctx.respond(new TextEncoder().encode(`you said ${(JSON.parse(body) as { content: string }).content}`));
        },
      })
      .build()
      .spawn(laser);
    await worker.ready();
    closers.push(() => worker.shutdown());
    const server = await startServer(bridge.handler({ topic, startRuns: { source: 'ui' } }));
    closers.push(server.close);
    const conversation = ConversationId.new();
    const agent = new HttpAgent({ url: `${server.url}/agui`, threadId: conversation.toString() });
    agent.addMessage({ id: 'u1', role: 'user', content: 'hello' });
    const seen: string[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void seen.push(event.type) });
    expect(seenBodies).toEqual(['{"role":"user","id":"u1","content":"hello"}']);
    expect(seen).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
  });
});
