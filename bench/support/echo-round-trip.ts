// The agent round trip the round-trip and telemetry benchmarks time: the echo agent of the agents
// package's tests answers a `laser.request` command with its own body on agent.responses.
import { type AgdxClient, AgentTopic } from '@agdx/agents';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { spawnEchoAgent } from '../../packages/agents/test/support/echo-agent.js';

/** The command body every round trip sends (the agent echoes it). */
export const ECHO_BODY: Uint8Array = new TextEncoder().encode('summarize incident 42');

/**
 * Spawns the echo agent on `agentClient` (the requester's own client by default) and returns one
 * correlated round trip through `laser`, and how to shut the agent down. `laser` must be
 * bootstrapped; closing the clients stays with the caller.
 */
export async function echoRoundTrip(laser: AgdxClient, agentClient: AgdxClient = laser, pipelined = true): Promise<{ once: () => Promise<void>; stopAgent: () => Promise<void> }> {
  const agent = await spawnEchoAgent(agentClient, pipelined);
  const planner = AgentId.new('planner');
  const conversation = ConversationId.new();
  const once = async (): Promise<void> => {
    const request = laser.agdx(AgentTopic.Commands, planner, conversation).command(MintUlid.mint(CorrelationId), ECHO_BODY).withTarget('echo');
    await laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 10_000 });
  };
  return { once, stopAgent: () => agent.shutdown() };
}
