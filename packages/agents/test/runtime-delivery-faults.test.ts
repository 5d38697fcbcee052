import { AgdxClient, Agent, AgentTopic, TestClock } from '@agdx/agents';
import { InvalidArgumentError, MAX_PAYLOAD_BYTES, TransportFailureError, type AppendRequest, type GroupMember, type JoinGroupRequest, type LogTransport } from '@agdx/transport';
import { CAPSULE_LIMITS, ContentType, ConversationId, DeadLetterReason, decodeProvenanceHeaders, stringHeader, uint32Header } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';
import { memoryEnv } from './support-runtime/env.js';
import { failedCommitIsKeptForShutdown, faultyCommits } from './support-runtime/delivery-scenarios.js';
import { command } from './support-runtime/scenarios.js';

const body = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);

async function storedOffset(transport: LogTransport, group: string): Promise<bigint | undefined> {
  return transport.getOffset({ stream: STREAM, topic: AgentTopic.Sessions, partition: 0, consumer: { kind: 'group', name: group } });
}

describe('delivery under faults', () => {
  it('keeps the offset of a failed commit: a graceful shutdown commits it, so a restart does not handle the record again', () =>
    failedCommitIsKeptForShutdown(memoryEnv));

  it('retries a failed commit while the partition stays quiet, so a crash later does not replay the record', async () => {
    const h = await harness(1);
    let failures = 0;
    const transport = faultyCommits(h.log.connect(), () => {
      if (failures++ === 0) throw new TransportFailureError('injected commit failure');
    });
    const handled: string[] = [];
    const agent = Agent.builder()
      .id('quiet')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .handler((m) => void handled.push(body(m.envelope?.body)))
      .spawn(AgdxClient.from(transport, { stream: STREAM }));
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('only'), ContentType.raw);
    await eventually(async () => (await storedOffset(h.log, 'quiet')) === 0n, 5_000, 'the failed commit made good');
    await agent.abort();
    expect(handled).toEqual(['only']);
  });

  // 16 MiB + 1: the log stores such a letter but no reader decodes it (the dead-letter capsule
  // cap); the log's own payload cap: the log refuses the letter, and the record stalled its
  // partition (read again and dead-lettered again, forever).
  it.each([
    ['a letter over the decoder cap', CAPSULE_LIMITS.deadLetter.maxBytes + 1],
    ['a letter the log refuses', MAX_PAYLOAD_BYTES],
  ])('dead-letters a record too large to carry in a dead letter (%s) without its bytes, once, and moves on', async (_case, size) => {
    const h = await harness(1);
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id('big-reader')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .handler((m) => void handled.push(body(m.envelope?.body)))
      .spawn(h.laser);
    await agent.ready();
    const huge = new Uint8Array(size).fill(0xff);
    await h.log.append({
      stream: STREAM,
      topic: AgentTopic.Sessions,
      records: [{ headers: new Map([['agdx.av', uint32Header(1)], ['gen_ai.conversation.id', stringHeader(ConversationId.new().toString())]]), payload: huge }],
    });
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => handled.includes('after'), 10_000, 'the record after the huge one');
    await agent.shutdown();
    const letters = await deadLetters(h.log);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe(DeadLetterReason.DecodeFailed);
    expect(letters[0]?.source.offset).toBe(0n);
    expect(letters[0]?.payload).toHaveLength(0);
    expect(letters[0]?.detail).toContain(`original payload of ${size} bytes left out`);
    expect(handled).toEqual(['after']);
  });

  it('keeps the original bytes of a record whose letter just fits', async () => {
    const h = await harness(1);
    await using agent = Agent.builder().id('fit-reader').listenOn(AgentTopic.Sessions).pollInterval(10).handler(() => undefined).spawn(h.laser);
    await agent.ready();
    const payload = new Uint8Array(CAPSULE_LIMITS.deadLetter.maxBytes - 4096).fill(0xff);
    await h.log.append({ stream: STREAM, topic: AgentTopic.Sessions, records: [{ headers: new Map([['agdx.av', uint32Header(1)]]), payload }] });
    await eventually(async () => (await deadLetters(h.log)).length === 1, 10_000, 'the letter');
    const kept = (await deadLetters(h.log))[0]?.payload ?? new Uint8Array(0);
    // Compared by hand: a diff of two 16 MiB arrays would not fit the test worker's memory.
    expect(kept.length).toBe(payload.length);
    expect(kept.every((byte) => byte === 0xff)).toBe(true);
  });

  it('writes a dead letter that failed to append again on the next read, without running the handler again', async () => {
    const h = await harness(1);
    let refusals = 1;
    const connection = h.log.connect();
    const transport = overriding(connection, {
      append: async (request: AppendRequest) => {
        if (request.topic === 'agent.dlq' && refusals > 0) {
          refusals--;
          throw new TransportFailureError('injected dead-letter failure');
        }
        return connection.append(request);
      },
    });
    const calls: string[] = [];
    await using agent = Agent.builder()
      .id('poisoned')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 3, baseDelayMs: 0 })
      .handler((m) => {
        const text = body(m.envelope?.body);
        calls.push(text);
        if (text === 'poison') throw new Error('always fails');
      })
      .spawn(AgdxClient.from(transport, { stream: STREAM }));
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('poison'), ContentType.raw);
    await eventually(async () => (await deadLetters(h.log)).length === 1, 10_000, 'the dead letter');
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => calls.includes('after'), 10_000, 'the record after the poison');
    await agent.shutdown();
    const letters = await deadLetters(h.log);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letters[0]?.attempts).toBe(3);
    // The three attempts the letter reports, not three more for each failed append.
    expect(calls).toEqual(['poison', 'poison', 'poison', 'after']);
    expect(agent.errors.some((e) => e instanceof TransportFailureError)).toBe(true);
  });

  const hostileThrows: ReadonlyArray<readonly [string, () => unknown]> = [
    ['an object without a prototype', () => Object.create(null)],
    ['an object whose toString throws', () => ({ toString: () => { throw new Error('no words'); } })],
    ['an Error whose message getter throws', () => Object.defineProperty(new Error('x'), 'message', { get: () => { throw new Error('no message'); } })],
    ['a revoked proxy', () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; }],
  ];

  it.each(hostileThrows)('dead-letters a handler that throws %s after the configured attempts, and moves on', async (_case, thrown) => {
    const h = await harness(1);
    const calls: string[] = [];
    await using agent = Agent.builder()
      .id('odd-thrower')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 2, baseDelayMs: 0 })
      .handler((m) => {
        const text = body(m.envelope?.body);
        calls.push(text);
        if (text === 'poison') throw thrown();
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('poison'), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => calls.includes('after'), 5_000, 'the record after the poison');
    await agent.shutdown();
    const letters = await deadLetters(h.log);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letters[0]?.attempts).toBe(2);
    expect(typeof letters[0]?.detail).toBe('string');
    // The retry waits for a handler turn of its own, so `after` may run between the attempts.
    expect([...calls].sort()).toEqual(['after', 'poison', 'poison']);
  });

  it('stops retrying work whose deadline passed during its attempts: DeadlineExceeded with the attempts made', async () => {
    const clock = new TestClock(1_000_000_000n);
    const h = await harness(1, { clock });
    const calls: string[] = [];
    await using agent = Agent.builder()
      .id('late-retrier')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 5, baseDelayMs: 0 })
      .handler((m) => {
        const text = body(m.envelope?.body);
        calls.push(text);
        if (text !== 'slow') return;
        // The attempt takes two seconds of the agent's clock, and the work had one.
        clock.advanceMs(2_000);
        throw new Error('flaky dependency');
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('slow').withDeadlineMicros(clock.nowMicros() + 1_000_000n), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => calls.includes('after'), 5_000, 'the record after the late one');
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'the letter');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(letter?.attempts).toBe(1);
    expect(letter?.detail).toContain('flaky dependency');
    expect(calls.filter((c) => c === 'slow')).toHaveLength(1);
  });

  it.each([
    ['at once', 0],
    ['after a transient failure of the full letter', 1],
  ])('writes a minimal letter when the log refuses the full one as invalid (%s), instead of stalling the partition', async (_case, hiccups) => {
    const h = await harness(1);
    const connection = h.log.connect();
    let refused = 0;
    let failures = hiccups;
    // A log with a smaller record cap than the letter needs (a server configured tighter).
    const transport = overriding(connection, {
      append: async (request: AppendRequest) => {
        if (request.topic === 'agent.dlq' && failures > 0) {
          failures--;
          throw new TransportFailureError('injected dead-letter failure');
        }
        if (request.topic === 'agent.dlq' && request.records.some((r) => r.payload.length > 1024)) {
          refused++;
          throw new InvalidArgumentError('payload over this log\'s 1 KiB cap');
        }
        return connection.append(request);
      },
    });
    const calls: string[] = [];
    await using agent = Agent.builder()
      .id('tight-log')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .retry({ maxAttempts: 2, baseDelayMs: 0 })
      .handler((m) => {
        const text = body(m.envelope?.body);
        calls.push(text.slice(0, 5));
        if (text.startsWith('large')) throw new Error('cannot handle it');
      })
      .spawn(AgdxClient.from(transport, { stream: STREAM }));
    await agent.ready();
    const large = command(`large${'x'.repeat(4096)}`);
    await h.laser.publish(AgentTopic.Sessions, large, ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(async () => calls.includes('after') && (await deadLetters(h.log)).length === 1, 5_000, 'the letter and the next record');
    await agent.shutdown();
    const letters = await deadLetters(h.log);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letters[0]?.attempts).toBe(2);
    expect(letters[0]?.payload).toHaveLength(0);
    expect(letters[0]?.detail).toContain('cannot handle it');
    expect(letters[0]?.detail).toContain('the log refused the full letter');
    const [dlq] = await readAll(h.log, 'agent.dlq');
    expect(decodeProvenanceHeaders(dlq!.headers).conversation.equals(large.conversation)).toBe(true);
    expect(refused).toBe(1);
    // The handler ran the configured attempts only; `after`, handled while the letter was out,
    // is handled again when a failed letter makes the partition re-read (at least once).
    expect(calls.filter((c) => c === 'large')).toHaveLength(2);
    expect(calls.filter((c) => c === 'after').length).toBeGreaterThanOrEqual(1);
  });

  it('never runs a partition\'s handlers side by side when the partition moves away and back mid-handling', async () => {
    const h = await harness(1);
    const connection = h.log.connect();
    let owned: readonly number[] = [0];
    let checks = 0;
    const transport = overriding(connection, {
      joinGroup: async (request: JoinGroupRequest): Promise<GroupMember> => {
        const member = await connection.joinGroup(request);
        // The group's answer, as a rebalance would change it: taken away, then given back.
        return overriding(member, {
          assignment: async () => {
            checks++;
            return owned;
          },
        });
      },
    });
    let running = 0;
    let most = 0;
    const calls: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    await using agent = Agent.builder()
      .id('mover')
      .listenOn(AgentTopic.Sessions)
      .concurrency({ kind: 'serial-per-partition', maxPartitions: 4 })
      .pollInterval(10)
      .handler(async (m) => {
        const text = body(m.envelope?.body);
        calls.push(text);
        running++;
        most = Math.max(most, running);
        try {
          if (text === 'slow') await gate;
        } finally {
          running--;
        }
      })
      .spawn(AgdxClient.from(transport, { stream: STREAM }));
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('slow'), ContentType.raw);
    try {
      await eventually(() => running === 1, 5_000, 'the slow handler running');
      owned = [];
      const away = checks;
      await eventually(() => checks >= away + 3, 5_000, 'the loop seeing the partition gone');
      owned = [0];
      const back = checks;
      await eventually(() => checks >= back + 5, 5_000, 'the loop seeing the partition back');
      expect(most).toBe(1);
    } finally {
      open();
    }
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => calls.includes('after'), 5_000, 'the record after the slow one');
    await agent.shutdown();
    expect(most).toBe(1);
    // The slow record was not committed by the lane that lost the partition: it is handled again
    // (at least once), one handler after the other, then the next record.
    expect(calls.filter((c) => c === 'slow').length).toBeGreaterThanOrEqual(1);
    expect(calls.indexOf('after')).toBeGreaterThan(calls.lastIndexOf('slow'));
  });
});

