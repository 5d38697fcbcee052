/**
 * Agents keep serving through primary changes of a three-node dev cluster: an echo agent and a
 * requester, each on its own transport given every node as a seed, while the primary moves by a
 * view change, then dies (the view moves on), then its node comes back and the primary returns.
 *
 * Test design: the dev-cluster nodes share one broker instead of replicating (see
 * `startDevCluster`), so a view change loses nothing on the server side; what this checks is the
 * client side: that the transports find each new primary within their bound, replay what a
 * backup refused unapplied (58), report a send cut off by the dying primary as an unknown
 * outcome (which the agents' retry sends again), so every request is answered and every
 * acknowledged append is in the log afterwards.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, agentMessageBody } from '@agdx/agents';
import { startDevCluster } from '@agdx/iggy-dev-server';
import { isBrandedError } from '@agdx/reliability';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';
import { AgdxError, AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { spawnEchoAgent } from './support/echo-agent.js';

const STREAM = 'cluster-agents';
const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

describe('agents over a three-node dev cluster', () => {
  it('every request is answered through a view change, a lost primary and its return; no acknowledged append is lost', async () => {
    await using cluster = await startDevCluster({ nodes: 3 });
    const options = { heartbeatIntervalMs: 0, cluster: { failoverTimeoutMs: 10_000 } };
    const agentTransport = await IggyTransport.connect(cluster.url, options);
    const requesterTransport = await IggyTransport.connect(cluster.url, options);
    const agentClient = AgdxClient.from(agentTransport, { stream: STREAM });
    await agentClient.bootstrap(2);
    const agent = await spawnEchoAgent(agentClient);
    const requester = AgdxClient.from(requesterTransport, { stream: STREAM });
    const conversation = ConversationId.derive('cluster-primary-change');

    const answered: string[] = [];
    const failures: string[] = [];
    let unknownOutcomes = 0;
    // At-least-once, as a user would write it: a publish whose outcome is unknown (the primary
    // died with the send in flight) is sent again; anything else is a failure of this test.
    const ask = async (i: number): Promise<void> => {
      const body = `q${i}`;
      for (let attempt = 1; attempt <= 3; attempt++) {
        try {
          const reply = await requester.request(
            requester.agdx(AgentTopic.Commands, 'asker', conversation).command(MintUlid.mint(CorrelationId), enc.encode(body)).withTarget(AgentId.new('echo')),
            { replyTopic: AgentTopic.Responses, timeoutMs: 15_000, verifier: null },
          );
          expect(dec(agentMessageBody(reply))).toBe(`echo:${body}`);
          answered.push(body);
          return;
        } catch (error) {
          const unknown = AgdxError.is(error, 'publish-failed') && (error as { retryable?: boolean }).retryable === true && isOutcomeUnknown(error.cause);
          if (unknown && attempt < 3) {
            unknownOutcomes++;
            continue;
          }
          failures.push(`${body}: ${isBrandedError(error) ? (error as { kind: string }).kind : 'untyped'} ${String(error)}`);
          return;
        }
      }
    };

    // The faults happen while requests are in flight: each phase runs its requests concurrently
    // with the fault that starts it.
    const faults: Array<[string, () => Promise<unknown> | unknown]> = [
      ['steady', () => undefined],
      ['view change to node 1', () => cluster.movePrimary(1)],
      ['primary node 1 dies', () => cluster.stopNode(1)],
      ['node 1 returns as primary', async () => {
        await cluster.startNode(1);
        cluster.movePrimary(1);
      }],
    ];
    let n = 0;
    for (const [, fault] of faults) {
      const batch = Array.from({ length: 8 }, () => ask(n++));
      await new Promise((r) => setTimeout(r, 15));
      await fault();
      await Promise.all(batch);
    }
    // Backups serve reads, so a transport that only waited for replies may still be on one; its
    // next append meets the 58 and moves to the primary.
    for (let i = 0; i < 4; i++) await ask(n++);
    expect(failures).toEqual([]);
    expect(answered).toHaveLength(n);
    // Only the dying primary can leave sends with an unknown outcome (one per transport at most).
    expect(unknownOutcomes).toBeLessThanOrEqual(2);
    expect(cluster.primary).toBe(1);
    expect(requesterTransport.endpoint?.port).toBe(cluster.nodes[1]!.port);
    expect(agentTransport.reconnects + requesterTransport.reconnects).toBeGreaterThanOrEqual(2);

    // Every request the requester got an answer to was appended and acknowledged: it is in the
    // commands topic (possibly twice, when a send's outcome was unknown and it was sent again).
    const commands = await requesterTransport.describeTopic({ stream: STREAM, topic: AgentTopic.Commands });
    const stored = new Set<string>();
    for (const p of commands.partitions) {
      for (const r of await requesterTransport.read({ stream: STREAM, topic: AgentTopic.Commands, partition: p.partition, offset: 0n, maxCount: 10_000 })) stored.add(dec(r.payload));
    }
    const storedText = [...stored].join('\n');
    for (const body of answered) expect(storedText).toContain(body);

    await agent.shutdown();
    await agentClient.close();
    await requester.close();
    await requesterTransport.close();
    await agentTransport.close();
  }, 120_000);
});
