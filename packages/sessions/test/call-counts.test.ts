import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC } from '@agdx/agents';
import { AgentId, CorrelationId, MintUlid } from '@agdx/wire';
import { sessions } from '@agdx/sessions';
import { encoder, setup } from './helpers.js';

const worker = AgentId.parse('worker');
const planner = AgentId.parse('planner');

describe('session reads count model and tool calls', () => {
  it('count a reasoning and a chat stream of one request once, and a tool call streamed then answered once', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('counted');
    const id = session.conversation;
    await session.lifecycle.begin({ agent: planner });
    const request = MintUlid.mint(CorrelationId);
    const reasoning = laser.agdx(SESSIONS_TOPIC, worker, id).stream(request, 'reasoning');
    await reasoning.write(encoder.encode('think '));
    await reasoning.write(encoder.encode('more'));
    await reasoning.finish('stop');
    const call = MintUlid.mint(CorrelationId);
    const args = laser.agdx(SESSIONS_TOPIC, worker, id).stream(call, 'tool_args').withTool('search');
    await args.write(encoder.encode('{"q":1}'));
    await args.finish('stop');
    await laser.agdx(SESSIONS_TOPIC, worker, id).respond(call, encoder.encode('{}')).withTool('search').send();
    const chat = laser.agdx(SESSIONS_TOPIC, worker, id).stream(request, 'chat');
    await chat.write(encoder.encode('answer'));
    await chat.finish('stop');
    await session.lifecycle.end();

    const info = await sessions(laser).get(id);
    expect(info).toMatchObject({ modelCalls: 1n, toolCalls: 1n, status: 'completed', bridge: undefined });
    const listed = (await sessions(laser).list()).items.find((s) => s.id.equals(id));
    expect(listed).toMatchObject({ modelCalls: 1n, toolCalls: 1n });
    // Later chunks do not repeat their stream's purpose; the timeline names it for every chunk.
    const chunks = (await sessions(laser).events(id)).items.filter((e) => e.kind === 'chunk').map((e) => `${e.display}: ${e.summary}`);
    expect(chunks).toEqual([
      ...Array<string>(3).fill('model.stream: chunk reasoning from worker'),
      ...Array<string>(2).fill('agent.message: chunk tool_args from worker'),
      ...Array<string>(2).fill('model.stream: chunk chat from worker'),
    ]);
  });

  it('count separate requests and separate tool calls separately', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('two-calls');
    const id = session.conversation;
    await session.lifecycle.begin({ agent: planner });
    for (let i = 0; i < 2; i++) {
      const stream = laser.agdx(SESSIONS_TOPIC, worker, id).stream(MintUlid.mint(CorrelationId), 'chat');
      await stream.write(encoder.encode(`answer ${i}`));
      await stream.finish('stop');
    }
    const send = laser.agdx(SESSIONS_TOPIC, planner, id);
    await send.command(MintUlid.mint(CorrelationId), encoder.encode('{}')).withOperation('chat').send();
    for (let i = 0; i < 3; i++) await send.command(MintUlid.mint(CorrelationId), encoder.encode('{}')).withOperation('execute_tool').withTool('search').send();
    // A response answers its request's call; a response whose request is elsewhere is a call too.
    const answered = MintUlid.mint(CorrelationId);
    await send.command(answered, encoder.encode('{}')).withOperation('execute_tool').withTool('search').send();
    await laser.agdx(SESSIONS_TOPIC, worker, id).respond(answered, encoder.encode('{}')).withOperation('execute_tool').withTool('search').send();
    await laser.agdx(SESSIONS_TOPIC, worker, id).respond(MintUlid.mint(CorrelationId), encoder.encode('{}')).withOperation('chat').send();
    const info = await sessions(laser).get(id);
    expect(info).toMatchObject({ modelCalls: 4n, toolCalls: 4n });
  });

  it('name the bridge that opened a conversation without a start record', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('bridged');
    await laser
      .agdx(SESSIONS_TOPIC, AgentId.parse('a2a-gateway'), session.conversation)
      .command(MintUlid.mint(CorrelationId), encoder.encode('{}'))
      .enterBridge('a2a-gateway')
      .send();
    const info = await sessions(laser).get(session.conversation);
    expect(info).toMatchObject({ bridge: 'a2a-gateway', implicit: true, modelCalls: 0n, toolCalls: 0n });
  });
});
