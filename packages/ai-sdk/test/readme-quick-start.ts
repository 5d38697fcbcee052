// The README's quick start, verbatim: test/readme.test.ts checks that the two agree.
import { Agent, AgdxClient, AgentTopic, agentMessageBody } from '@agdx/agents';
import { agentTool, recordModelStream, sessionModelMessages } from '@agdx/ai-sdk';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { stepCountIs, streamText, type LanguageModel } from 'ai';

export async function quickStart(model: LanguageModel) {
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
  await laser.bootstrap(4);
  const text = new TextEncoder();

  // A weather agent: any AGDX agent can serve as a tool.
  const weatherAgent = Agent.builder()
    .id(AgentId.new('weather'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .handler({
      handle: async (message, ctx) => {
        const { city } = JSON.parse(new TextDecoder().decode(agentMessageBody(message)));
        await ctx.respond(text.encode(`${city}: 3 °C, light snow`));
      },
    })
    .build()
    .spawn(laser);

  const weather = agentTool(laser, {
    agent: 'weather',
    source: 'assistant',
    description: 'The current weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    timeoutMs: 30_000,
  });

  // The assistant: one model call per question, recorded on the log and in the session.
  const assistant = Agent.builder()
    .id(AgentId.new('assistant'))
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .serves(['ask'])
    .handler({
      handle: async (message, ctx) => {
        const session = sessions(laser).open(ctx.conversation);
        const question = { role: 'user' as const, content: new TextDecoder().decode(agentMessageBody(message)) };
        const history = await sessionModelMessages(session);
        const result = streamText({ model, messages: [...history, question], tools: { weather }, stopWhen: stepCountIs(5) });
        await recordModelStream(result, ctx, {
          price: { inputPerMillion: '0.15', outputPerMillion: '0.60' },
          provider: 'openai',
          session,
          request: [question],
        });
      },
    })
    .build()
    .spawn(laser);
  await Promise.all([weatherAgent.ready(), assistant.ready()]);

  // A client asks; the reply is the model's answer, with usage and the model id.
  const ask = laser
    .agdx(AgentTopic.Sessions, AgentId.new('user-app'), ConversationId.derive('chat-42'))
    .command(MintUlid.mint(CorrelationId), text.encode('Should I cycle to work in Oslo today?'))
    .withOperation('ask')
    .withTarget('assistant');
  const reply = await laser.request(ask, { replyTopic: AgentTopic.Sessions, timeoutMs: 60_000 });

  await Promise.all([assistant.shutdown(), weatherAgent.shutdown()]);
  return {
    answer: new TextDecoder().decode(agentMessageBody(reply)),
    model: reply.envelope?.metadata?.get('gen_ai.response.model'),
    usage: reply.envelope?.usage, // { inputTokens, outputTokens, costMicros, ... }
  };
}
