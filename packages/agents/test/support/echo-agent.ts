/**
 * The echo agent the burst tests and the round-trip benchmarks (`bench/support/echo-round-trip.ts`)
 * both run: it listens on agent.commands and answers each command with its own body on
 * agent.responses. Heartbeats and the control topic are off, so the only records are the
 * requests and their answers.
 */
import { type AgdxClient, Agent, type AgentHandle, AgentTopic } from '@agdx/agents';

/** The answer to a record without an envelope (a command always has one, so it is never sent). */
const NO_BODY = new Uint8Array([0]);

/**
 * Spawns the echo agent, with id `echo`, on `client` and resolves once it is ready. `pipelined`
 * (default true) keeps the agent's default pipelining; false answers one record at a time.
 */
export async function spawnEchoAgent(client: AgdxClient, pipelined = true): Promise<AgentHandle> {
  const agent = Agent.builder()
    .id('echo')
    .listenOn(AgentTopic.Commands)
    .respondOn(AgentTopic.Responses)
    .followControl(false)
    .heartbeats(false)
    .pipelining(pipelined)
    .handler((message, ctx) => ctx.respond(message.envelope?.body ?? NO_BODY))
    .spawn(client);
  await agent.ready();
  return agent;
}
