import { AgdxClient, Agent, AgentTopic, type AgentHandle } from '@agdx/agents';
import { TransportFailureError, type MemoryLog } from '@agdx/transport';
import { ContentType, ConversationId, DeadLetterReason, decodeProvenanceHeaders, envelopeRecord, stringHeader, uint32Header } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { deadLetters, eventually, harness, readAll, STREAM, stopAll } from './support-runtime/harness.js';
import { command, crashRedeliversAndLosesNothing, poisonRecordIsDeadLettered } from './support-runtime/scenarios.js';

describe('reliable consumer', () => {
  it('redelivers a record handled but not committed when the agent dies, and a second member of the group loses none', () =>
    crashRedeliversAndLosesNothing(memoryEnv));

  it('dead-letters a poison record after the configured attempts with its bytes intact', () => poisonRecordIsDeadLettered(memoryEnv));

  it('dead-letters an undecodable record (DecodeFailed) with its original bytes, and keeps consuming', async () => {
    const h = await harness();
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id('reader')
      .listenOn(AgentTopic.Sessions)
      .handler((m) => void handled.push(new TextDecoder().decode(m.envelope?.body)))
      .spawn(h.laser);
    await agent.ready();
    const garbage = new Uint8Array([0xa1, 0x61, 0x6b, 0xff, 0x00, 0x13]);
    await h.log.append({
      stream: STREAM,
      topic: AgentTopic.Sessions,
      records: [{ headers: new Map([['agdx.av', uint32Header(1)], ['gen_ai.conversation.id', stringHeader(ConversationId.new().toString())]]), payload: garbage }],
    });
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => handled.includes('after'), 5_000, 'the record after the garbage');
    const letters = await deadLetters(h.log);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe(DeadLetterReason.DecodeFailed);
    expect(letters[0]?.attempts).toBe(0);
    expect(letters[0]?.payload).toEqual(garbage);
  });

  it('dead-letters a record with an unknown must_understand bit, and accepts it once the bit is understood', async () => {
    const h = await harness();
    const handled: string[] = [];
    const needy = command('needs-bit-4').requiring(1n << 4n);
    const record = envelopeRecord(needy, ContentType.raw, { topic: AgentTopic.Sessions });
    await h.log.append({ stream: STREAM, topic: AgentTopic.Sessions, records: [{ headers: record.headers, payload: record.payload }] });
    const strict = Agent.builder().id('strict').listenOn(AgentTopic.Sessions).handler((m) => void handled.push(`strict:${m.envelope?.record}`)).spawn(h.laser);
    await strict.ready();
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a DecodeFailed letter');
    expect((await deadLetters(h.log))[0]?.reason).toBe(DeadLetterReason.DecodeFailed);
    expect((await deadLetters(h.log))[0]?.detail).toContain('unsupported features');
    await strict.shutdown();
    const lenient = Agent.builder().id('lenient').listenOn(AgentTopic.Sessions).understoodFeatures(1n << 4n).handler((m) => void handled.push(`lenient:${m.envelope?.record}`)).spawn(h.laser);
    await lenient.ready();
    await eventually(() => handled.length === 1, 5_000, 'the lenient agent');
    await lenient.shutdown();
    expect(handled).toEqual([`lenient:${needy.record}`]);
  });

  it('dead-letters work past its deadline (DeadlineExceeded) without calling the handler', async () => {
    const h = await harness();
    let called = false;
    await using agent = Agent.builder().id('timely').listenOn(AgentTopic.Sessions).handler(() => void (called = true)).spawn(h.laser);
    await agent.ready();
    const late = command('late').withDeadlineMicros(1n);
    await h.laser.publish(AgentTopic.Sessions, late, ContentType.raw);
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a deadline letter');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(called).toBe(false);
    // The letter's provenance drops the deadline (it must not expire with its record).
    const [dlq] = await readAll(h.log, 'agent.dlq');
    expect(decodeProvenanceHeaders(dlq!.headers).deadlineMicros).toBeUndefined();
  });

  it('dead-letters a non-retryable failure at once (Rejected)', async () => {
    const h = await harness();
    let attempts = 0;
    await using agent = Agent.builder()
      .id('strict-handler')
      .listenOn(AgentTopic.Sessions)
      .retry({ maxAttempts: 5, baseDelayMs: 1 })
      .handler(async () => {
        attempts++;
        const { InvalidError } = await import('@agdx/wire');
        throw new InvalidError('bad request');
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('bad'), ContentType.raw);
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a rejected letter');
    expect((await deadLetters(h.log))[0]?.reason).toBe(DeadLetterReason.Rejected);
    expect(attempts).toBe(1);
  });

  it('retries a handler that throws synchronously, or whose answer fails, and then handles the record once', async () => {
    // A plain record's first attempt runs outside the retry loop (record-pipeline.ts): its
    // failures, thrown or rejected, must still be retried there and counted as attempts.
    const h = await harness();
    const attempts: number[] = [];
    await using agent = Agent.builder()
      .id('flaky-handler')
      .listenOn(AgentTopic.Sessions)
      .retry({ maxAttempts: 4, baseDelayMs: 1 })
      .handler((_m, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt === 0) throw new Error('not yet');
        if (ctx.attempt === 1) return Promise.reject(new Error('still not'));
        return undefined;
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('flaky'), ContentType.raw);
    await eventually(() => agent.stats.handled === 1, 5_000, 'handled after two failures');
    expect(attempts).toEqual([0, 1, 2]);
    expect(await deadLetters(h.log)).toHaveLength(0);
  });

  it('dead-letters RetryExhausted after the configured attempts when every first attempt throws synchronously', async () => {
    const h = await harness();
    let attempts = 0;
    await using agent = Agent.builder()
      .id('always-throws')
      .listenOn(AgentTopic.Sessions)
      .retry({ maxAttempts: 3, baseDelayMs: 1 })
      .handler(() => {
        attempts++;
        throw new Error('never');
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('doomed'), ContentType.raw);
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a RetryExhausted letter');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letter?.attempts).toBe(3);
    expect(attempts).toBe(3);
  });

  it('dead-letters a handler that throws a value with no text form, and goes on to the next record', async () => {
    const h = await harness();
    let attempts = 0;
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id('throws-oddly')
      .listenOn(AgentTopic.Sessions)
      .retry({ maxAttempts: 2, baseDelayMs: 1 })
      .handler((m) => {
        const body = new TextDecoder().decode(m.envelope?.body);
        if (body !== 'odd') return void handled.push(body);
        attempts++;
        // String() of this throws: describing the failure must not.
        throw Object.create(null);
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('odd'), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => handled.includes('after'), 5_000, 'the record after the odd throw');
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a RetryExhausted letter');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(attempts).toBe(2);
  });

  it('keeps per-partition order in both concurrency modes', async () => {
    for (const concurrency of [{ kind: 'serial' } as const, { kind: 'serial-per-partition', maxPartitions: 3 } as const]) {
      const h = await harness(3);
      const order = new Map<string, number[]>();
      await using agent = Agent.builder()
        .id('ordered')
        .listenOn(AgentTopic.Sessions)
        .concurrency(concurrency)
        .handler(async (m) => {
          const [conv, n] = new TextDecoder().decode(m.envelope?.body).split('#');
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
          order.set(conv!, [...(order.get(conv!) ?? []), Number(n)]);
        })
        .spawn(h.laser);
      await agent.ready();
      const conversations = Array.from({ length: 6 }, () => ConversationId.new());
      for (let i = 0; i < 20; i++) {
        for (const [k, conversation] of conversations.entries()) {
          await h.laser.publish(AgentTopic.Sessions, command(`c${k}#${i}`, conversation), ContentType.raw);
        }
      }
      await eventually(() => agent.stats.handled === 120, 10_000, 'all handled');
      for (const seen of order.values()) expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
    }
  });

  it('survives a flaky transport: failed reads, assignments and commits are retried and nothing is lost', async () => {
    const h = await harness(2);
    const connection = h.log.connect();
    let calls = 0;
    const flaky = (): void => {
      if (++calls % 4 === 0) throw new TransportFailureError('injected failure');
    };
    const transport = new Proxy(connection, {
      get(target, property, receiver) {
        if (property === 'read') return async (request: Parameters<MemoryLog['read']>[0]) => (flaky(), target.read(request));
        if (property === 'joinGroup') {
          return async (request: Parameters<MemoryLog['joinGroup']>[0]) => {
            const member = await target.joinGroup(request);
            return {
              group: member.group,
              memberId: member.memberId,
              assignment: async (options?: { signal?: AbortSignal }) => (flaky(), member.assignment(options)),
              poll: member.poll.bind(member),
              commit: async (partition: number, offset: bigint) => (flaky(), member.commit(partition, offset)),
              waitFor: member.waitFor.bind(member),
              leave: member.leave.bind(member),
            };
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const seen = new Set<string>();
    await using agent = Agent.builder()
      .id('sturdy')
      .listenOn(AgentTopic.Sessions)
      .concurrency({ kind: 'serial-per-partition', maxPartitions: 2 })
      .pollInterval(10)
      .handler((m) => void seen.add(new TextDecoder().decode(m.envelope?.body)))
      .spawn(AgdxClient.from(transport, { stream: STREAM }));
    await agent.ready();
    const bodies = Array.from({ length: 60 }, (_, i) => `f-${i}`);
    for (const body of bodies) await h.laser.publish(AgentTopic.Sessions, command(body), ContentType.raw);
    await eventually(() => bodies.every((b) => seen.has(b)), 10_000, 'every record despite the failures');
    expect(agent.errors.length).toBeGreaterThan(0);
  });

  it('loses nothing while members join, leave and crash during a steady flow', async () => {
    const h = await harness(4);
    const seen = new Set<string>();
    const spawn = (): AgentHandle =>
      Agent.builder()
        .id('churn')
        .listenOn(AgentTopic.Sessions)
        .concurrency({ kind: 'serial-per-partition', maxPartitions: 4 })
        .pollInterval(10)
        .handler(async (m) => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
          seen.add(new TextDecoder().decode(m.envelope?.body));
        })
        .spawn(h.connect());
    const members: AgentHandle[] = [spawn(), spawn()];
    await Promise.all(members.map((m) => m.ready()));
    const bodies = Array.from({ length: 200 }, (_, i) => `c-${i}`);
    for (const [i, body] of bodies.entries()) {
      await h.laser.publish(AgentTopic.Sessions, command(body), ContentType.raw);
      if (i % 25 === 10) {
        const leaving = members.shift()!;
        await (i % 50 === 10 ? leaving.abort() : leaving.shutdown());
        const joining = spawn();
        members.push(joining);
        await joining.ready();
      }
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const committedToEnd = async (): Promise<boolean> => {
      const description = await h.log.describeTopic({ stream: STREAM, topic: AgentTopic.Sessions });
      for (const p of description.partitions) {
        const stored = await h.log.getOffset({ stream: STREAM, topic: AgentTopic.Sessions, partition: p.partition, consumer: { kind: 'group', name: 'churn' } });
        if (p.nextOffset > 0n && stored !== p.nextOffset - 1n) return false;
      }
      return true;
    };
    await eventually(async () => bodies.every((b) => seen.has(b)) && (await committedToEnd()), 15_000, 'every record through the churn');
    await stopAll(...members);
  });

  it('in serial mode a busy partition does not starve another one', async () => {
    const h = await harness(2);
    const byPartition = new Map<number, ConversationId>();
    while (byPartition.size < 2) {
      const conversation = ConversationId.new();
      const at = await h.laser.publish(AgentTopic.Sessions, command('probe', conversation), ContentType.raw);
      byPartition.set(at.partition, conversation);
    }
    for (let i = 0; i < 400; i++) await h.laser.publish(AgentTopic.Sessions, command(`busy-${i}`, byPartition.get(0)), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('quiet', byPartition.get(1)), ContentType.raw);
    const order: string[] = [];
    await using agent = Agent.builder()
      .id('fair')
      .listenOn(AgentTopic.Sessions)
      .handler((m) => void order.push(new TextDecoder().decode(m.envelope?.body)))
      .spawn(h.laser);
    await agent.ready();
    await eventually(() => order.includes('quiet') && order.includes('busy-399'), 10_000, 'both partitions');
    expect(order.indexOf('quiet')).toBeLessThan(order.indexOf('busy-399'));
  });
});
