/**
 * `handlerTimeout(ms)` and `ctx.signal`: a handler that never settles no longer blocks its
 * partition. Its attempt fails when the deadline passes on the agent's clock (a TestClock here,
 * so no test waits on wall time for the deadline), it is retried and then dead-lettered
 * DeadlineExceeded, the records behind it are handled, and its late answers are refused with the
 * typed TimeoutError instead of being appended. The signal also aborts on a hard stop and when
 * the partition's lease is lost.
 */
import { AgdxClient, Agent, AgentTopic, CancelledError, TimeoutError, TestClock, type AgentCtx } from '@agdx/agents';
import { AgdxError, AgentEnvelope, ContentType, DeadLetterReason, InvalidError } from '@agdx/wire';
import type { GroupMember, JoinGroupRequest } from '@agdx/transport';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';
import { command } from './support-runtime/scenarios.js';

const body = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes ?? new Uint8Array());
const text = new TextEncoder();
/** Never settles: a model call that never answers. */
const never = new Promise<void>(() => undefined);

/** The records on `agent.sessions` the agent wrote as answers (kind response, error, event, chunk). */
async function answersOf(h: Awaited<ReturnType<typeof harness>>, agent: string): Promise<string[]> {
  const records = await readAll(h.log, AgentTopic.Sessions);
  return records
    .map((r) => {
      try {
        return AgentEnvelope.decode(r.payload);
      } catch {
        return undefined;
      }
    })
    .filter((e) => e !== undefined && e.source.value === agent && e.kind !== 'command' && e.kind !== 'status')
    .map((e) => `${e!.kind}:${body(e!.body)}`);
}

describe('handlerTimeout and ctx.signal', () => {
  it('fails a handler that never settles at its deadline, retries it, dead-letters it DeadlineExceeded and moves on', async () => {
    const clock = new TestClock(1_000_000_000n);
    const h = await harness(1, { clock });
    const contexts: AgentCtx[] = [];
    const calls: string[] = [];
    await using agent = Agent.builder()
      .id('hung')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .heartbeats(false)
      .handlerTimeout(1_000)
      .retry({ maxAttempts: 2, baseDelayMs: 0 })
      .handler((m, ctx) => {
        const t = body(m.envelope?.body);
        calls.push(t);
        if (t !== 'hang') return ctx.respond(text.encode(`done ${t}`));
        contexts.push(ctx);
        // Ignores its signal and never settles.
        return never;
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('hang'), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);

    await eventually(() => contexts.length === 1, 5_000, 'the first attempt');
    const first = contexts[0] as AgentCtx;
    expect(first.signal.aborted).toBe(false);
    expect(first.attempt).toBe(0);
    clock.advanceMs(999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.signal.aborted).toBe(false);
    expect(calls).toEqual(['hang']);
    clock.advanceMs(1);
    expect(first.signal.aborted).toBe(true);
    expect(first.signal.reason).toBeInstanceOf(TimeoutError);
    expect(AgdxError.is(first.signal.reason, 'timeout')).toBe(true);

    await eventually(() => contexts.length === 2, 5_000, 'the retry');
    const second = contexts[1] as AgentCtx;
    expect(second.attempt).toBe(1);
    expect(second.signal.aborted).toBe(false);
    clock.advanceMs(1_000);
    expect(second.signal.aborted).toBe(true);

    await eventually(() => calls.includes('after') && agent.stats['dead-lettered'] === 1, 5_000, 'the letter and the next record');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(letter?.attempts).toBe(2);
    expect(letter?.detail).toContain('timed out');
    expect(letter?.detail).toContain('1000 ms');
    expect(agent.stats.handled).toBe(1);

    // Late effects of the timed-out attempts are refused with the attempt's TimeoutError, and
    // nothing of them reaches the log.
    await expect(first.respond(text.encode('late'))).rejects.toBe(first.signal.reason);
    await expect(second.emit(text.encode('late event'))).rejects.toBeInstanceOf(TimeoutError);
    await expect(second.fail({ code: 6, retryable: false })).rejects.toBeInstanceOf(TimeoutError);
    const writer = first.stream('chat');
    await expect(writer.write(text.encode('late chunk'))).rejects.toBeInstanceOf(TimeoutError);
    await expect(first.endSession(4)).rejects.toBeInstanceOf(TimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // (the runtime's own error reply to the dead-lettered command is the only other answer)
    expect((await answersOf(h, 'hung')).filter((a) => !a.startsWith('error:'))).toEqual(['response:done after']);
  });

  it('refuses a late answer of a pipelined and of an awaiting agent alike', async () => {
    for (const pipelined of [true, false]) {
      const clock = new TestClock(1_000_000_000n);
      const h = await harness(1, { clock });
      let late: Promise<void> | undefined;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const agent = Agent.builder()
        .id(`late-${pipelined}`)
        .listenOn(AgentTopic.Sessions)
        .respondOn(AgentTopic.Sessions)
        .pollInterval(10)
        .heartbeats(false)
        .pipelining(pipelined)
        .handlerTimeout(50)
        .retry({ maxAttempts: 1, baseDelayMs: 0 })
        .handler(async (_m, ctx) => {
          // Finishes its work only after the deadline, then answers as if all went well.
          await held;
          late = ctx.respond(text.encode('too late'));
          await late;
        })
        .spawn(h.laser);
      try {
        await agent.ready();
        await h.laser.publish(AgentTopic.Sessions, command('slow'), ContentType.raw);
        await eventually(() => clock.pendingSleeps > 0, 5_000, 'the armed deadline');
        clock.advanceMs(50);
        await eventually(() => agent.stats['dead-lettered'] === 1, 5_000, 'the letter');
        release();
        await eventually(() => late !== undefined, 5_000, 'the late answer');
        await expect(late).rejects.toBeInstanceOf(TimeoutError);
        expect((await answersOf(h, `late-${pipelined}`)).filter((a) => a.startsWith('response:'))).toEqual([]);
      } finally {
        await agent.shutdown();
      }
    }
  });

  it('has no deadline by default: a slow handler is never cut short, and its signal stays quiet', async () => {
    const clock = new TestClock(1_000_000_000n);
    const h = await harness(1, { clock });
    let ctxSeen: AgentCtx | undefined;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await using agent = Agent.builder()
      .id('patient')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .heartbeats(false)
      .handler(async (_m, ctx) => {
        ctxSeen = ctx;
        await held;
        await ctx.respond(text.encode('eventually'));
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('slow'), ContentType.raw);
    await eventually(() => ctxSeen !== undefined, 5_000, 'the handler');
    clock.advanceMs(24 * 3_600_000);
    expect(ctxSeen?.signal.aborted).toBe(false);
    release();
    await eventually(() => agent.stats.handled === 1, 5_000, 'the record handled');
    expect(await answersOf(h, 'patient')).toEqual(['response:eventually']);
    expect(await deadLetters(h.log)).toHaveLength(0);
  });

  it('a handler that honours its signal is not dead-lettered for a hard stop: the record is redelivered', async () => {
    const h = await harness(1);
    let signal: AbortSignal | undefined;
    const agent = Agent.builder()
      .id('stopped')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .heartbeats(false)
      .retry({ maxAttempts: 1, baseDelayMs: 0 })
      .handler(async (_m, ctx) => {
        signal = ctx.signal;
        await new Promise<void>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('work'), ContentType.raw);
    await eventually(() => signal !== undefined, 5_000, 'the handler');
    await agent.abort();
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(CancelledError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await deadLetters(h.log)).toHaveLength(0);

    // The next process handles the record: it was never committed nor dead-lettered.
    const handled: string[] = [];
    await using again = Agent.builder()
      .id('stopped')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .heartbeats(false)
      .handler((m) => {
        handled.push(body(m.envelope?.body));
      })
      .spawn(h.connect());
    await again.ready();
    await eventually(() => handled.includes('work'), 5_000, 'the redelivered record');
  });

  it('aborts the signal when the partition is lost, and a hung handler no longer holds the partition past its deadline', async () => {
    const clock = new TestClock(1_000_000_000n);
    const h = await harness(1, { clock });
    const connection = h.log.connect();
    let owned: readonly number[] = [0];
    const transport = overriding(connection, {
      joinGroup: async (request: JoinGroupRequest): Promise<GroupMember> => {
        const member = await connection.joinGroup(request);
        return overriding(member, { assignment: async () => owned });
      },
    });
    const contexts: AgentCtx[] = [];
    const errors: unknown[] = [];
    const agent = Agent.builder()
      .id('mover')
      .listenOn(AgentTopic.Sessions)
      .pollInterval(10)
      .heartbeats(false)
      .handlerTimeout(60_000)
      .onError((e) => errors.push(e))
      .handler((m, ctx) => {
        if (body(m.envelope?.body) === 'hang') contexts.push(ctx);
        return never;
      })
      .spawn(AgdxClient.from(transport, { stream: STREAM, clock }));
    // Its handlers never settle: a graceful shutdown would wait out its grace.
    await using _stop = { [Symbol.asyncDispose]: () => agent.abort() };
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('hang'), ContentType.raw);
    await eventually(() => contexts.length === 1, 5_000, 'the hung handler');
    owned = [];
    await eventually(() => contexts[0]?.signal.aborted === true, 5_000, 'the signal after the partition was lost');
    expect(contexts[0]?.signal.reason).toBeInstanceOf(CancelledError);
    // Given back: the record is read again from the group's offset and handled by a new attempt,
    // though the first handler never settled.
    owned = [0];
    await eventually(() => contexts.length === 2, 5_000, 'the record handled again after the partition came back');
    expect(contexts[1]?.signal.aborted).toBe(false);
    // Lost partitions are no error, and the record was not dead-lettered.
    expect(errors.filter((e) => AgdxError.is(e, 'cancelled'))).toEqual([]);
    expect(await deadLetters(h.log)).toHaveLength(0);
  });

  it('refuses a handler timeout that is not a positive finite number of ms', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      expect(() => Agent.builder().handlerTimeout(bad)).toThrow(InvalidError);
    }
  });
});
