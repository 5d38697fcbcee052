/**
 * Child-process entry: one worker agent of the crash suite. It consumes `agent.commands` in the
 * consumer group `workers` and answers each command on `agent.responses` with `done:<body>`.
 * Arguments: <iggy url> <stream> <handler delay ms>. Prints `READY` once it joined its group.
 */
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { IggyTransport } from '@agdx/transport-iggy';

const [url, stream, delay] = process.argv.slice(2);
if (url === undefined || stream === undefined) throw new Error('usage: agent-main <url> <stream> [delay ms]');
const delayMs = Number(delay ?? 0);
const transport = await IggyTransport.connect(url, {
  requestTimeoutMs: 2_000,
  connectTimeoutMs: 2_000,
  reconnect: { maxAttempts: 1_000, initialDelayMs: 50, maxDelayMs: 300 },
});
const client = AgdxClient.from(transport, { stream });
const text = new TextEncoder();
const agent = Agent.builder()
  .id('worker')
  .consumerGroup('workers')
  .listenOn(AgentTopic.Commands)
  .respondOn(AgentTopic.Responses)
  .retry({ maxAttempts: 1_000, baseDelayMs: 20, maxDelayMs: 300 })
  .pollInterval(20)
  .heartbeats(false)
  .followControl(false)
  .handler(async (message, ctx) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const body = new TextDecoder().decode(agentMessageBody(message));
    try {
      await ctx.respond(text.encode(`done:${body}`));
    } catch (error) {
      // A plain throw is retried by the runtime; a failed publish while the server is down must
      // not end as a dead letter, since the point is that the reply eventually lands.
      throw new Error('respond failed', { cause: error });
    }
  })
  .build()
  .spawn(client);
await agent.ready();
process.stdout.write('READY\n');
