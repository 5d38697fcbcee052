/**
 * Delivery under injected faults as transport-neutral scenario bodies (the MemoryLog tests and
 * the Iggy tests run the same code): the faults come from a wrapping `LogTransport`.
 */
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import { TransportFailureError, type GroupMember, type JoinGroupRequest, type LogTransport } from '@agdx/transport';
import { ContentType } from '@agdx/wire';
import { expect } from 'vitest';
import type { RuntimeEnvFactory } from './env.js';
import { decode, eventually } from './harness.js';
import { overriding } from './overriding.js';
import { command } from './scenarios.js';

/** `transport` whose group members run `fault` (which may throw) before every commit. */
export function faultyCommits(transport: LogTransport, fault: (partition: number, offset: bigint) => void): LogTransport {
  return overriding(transport, {
    joinGroup: async (request: JoinGroupRequest): Promise<GroupMember> => {
      const member = await transport.joinGroup(request);
      return overriding(member, {
        commit: async (partition: number, offset: bigint) => {
          fault(partition, offset);
          return member.commit(partition, offset);
        },
      });
    },
  });
}

/**
 * A commit that fails keeps its offset: the graceful shutdown commits it, so an agent of the same
 * group started afterwards does not handle the record again.
 */
export async function failedCommitIsKeptForShutdown(open: RuntimeEnvFactory): Promise<void> {
  const env = await open(1);
  try {
    let failures = 0;
    let failing = true;
    const own = await env.connect();
    const transport = faultyCommits(own.transport, () => {
      if (!failing) return;
      failures++;
      throw new TransportFailureError('injected commit failure');
    });
    const handled: string[] = [];
    // A long poll interval puts the background retry of the commit out of reach: the shutdown
    // itself must commit the offset.
    const first = Agent.builder()
      .id('committer')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(60_000)
      .handler((m) => void handled.push(decode(m.envelope?.body ?? new Uint8Array())))
      .spawn(AgdxClient.from(transport, { stream: env.stream }));
    await first.ready();
    await env.laser.publish(AgentTopic.Sessions, command('only'), ContentType.raw);
    await eventually(() => handled.length === 1 && failures > 0, 10_000, 'the record handled and its commit failed');
    failing = false;
    await first.shutdown();
    expect(first.errors.some((e) => e instanceof TransportFailureError)).toBe(true);
    const stored = await env.transport.getOffset({ stream: env.stream, topic: AgentTopic.Sessions, partition: 0, consumer: { kind: 'group', name: 'committer' } });
    expect(stored).toBe(0n);

    const second = Agent.builder()
      .id('committer')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .handler((m) => void handled.push(decode(m.envelope?.body ?? new Uint8Array())))
      .spawn(await env.connect());
    await second.ready();
    await env.laser.publish(AgentTopic.Sessions, command('next'), ContentType.raw);
    await eventually(() => handled.includes('next'), 10_000, 'the next record');
    await second.shutdown();
    expect(handled).toEqual(['only', 'next']);
  } finally {
    await env.close();
  }
}
