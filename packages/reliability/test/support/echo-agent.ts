/**
 * The echo agent several scenarios put behind their faults: it answers every command on
 * `agent.responses` with `echo:<body>`, without heartbeats or control, polling every 20 ms.
 */
import { AgentTopic, agentMessageBody, Agent } from '@agdx/agents';
import type { AgdxClient, AgentHandle } from '@agdx/agents';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** Spawns the echo agent (id `echo`) on `client` and waits until it is ready. */
export async function spawnEchoAgent(client: AgdxClient): Promise<AgentHandle> {
  const agent = Agent.builder()
    .id('echo')
    .listenOn(AgentTopic.Commands)
    .respondOn(AgentTopic.Responses)
    .heartbeats(false)
    .followControl(false)
    .pollInterval(20)
    .handler((message, ctx) => ctx.respond(enc.encode(`echo:${dec(agentMessageBody(message))}`)))
    .spawn(client);
  await agent.ready();
  return agent;
}
