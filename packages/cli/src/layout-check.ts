/** Checks a command-line layout against the log before a read trusts it. */

import { AgentTopic, locatePartitions, type AgdxClient } from '@agdx/agents';

/**
 * Asks the layout for every place a conversation's lane records may take and resolves them on the
 * log, so a declared per-agent topic the stream lacks, or a declared partition beyond the lane's
 * count, fails as `layout-mismatch` instead of a read that quietly misses those records. The key
 * is arbitrary: without an agent and a kind the answer lists every declared place. A missing
 * stream or lane is left to the read, which reports it as it always has.
 * @throws LayoutMismatchError when the log was not bootstrapped with the client's layout.
 */
export async function checkLayoutOnLog(client: AgdxClient, stream: string, signal: AbortSignal): Promise<void> {
  try {
    await locatePartitions(client.transport, stream, client.layout, { topic: AgentTopic.Sessions, conversation: 'agdx-cli-layout-check' }, signal);
  } catch (error) {
    if ((error as { kind?: unknown }).kind === 'not-found') return;
    throw error;
  }
}
