/**
 * A command's own deadline (`deadline_micros`) ends a handler attempt still running when it
 * passes, as `handlerTimeout` does, whichever comes first on the agent's clock (a TestClock here,
 * so no test waits on wall time). Past the command's deadline no retry starts: the record is
 * dead-lettered DeadlineExceeded at once and the requester's error reply says it is not worth
 * retrying. A command without a deadline on an agent without a timeout arms nothing.
 */
import { Agent, AgentTopic, TestClock, TimeoutError, type AgentCtx } from '@agdx/agents';
import { AgentEnvelope, AgentErrorCode, ContentType, DeadLetterReason, decodeAgentErrorBody, type AgentErrorBody } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll } from './support-runtime/harness.js';
import { command } from './support-runtime/scenarios.js';

const body = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes ?? new Uint8Array());
const text = new TextEncoder();
/** Never settles: a model call that never answers. */
const never = new Promise<void>(() => undefined);
const START = 1_000_000_000n;

type Harness = Awaited<ReturnType<typeof harness>>;

/** The envelopes on `agent.sessions` that `agent` wrote (its answers and the runtime's error replies). */
async function writtenBy(h: Harness, agent: string): Promise<AgentEnvelope[]> {
  return (await readAll(h.log, AgentTopic.Sessions)).map((r) => AgentEnvelope.decode(r.payload)).filter((e) => e.source.value === agent && e.kind !== 'status');
}

/** The error replies `agent` wrote, decoded. */
async function errorReplies(h: Harness, agent: string): Promise<AgentErrorBody[]> {
  return (await writtenBy(h, agent)).filter((e) => e.kind === 'error').map((e) => decodeAgentErrorBody(e.body ?? new Uint8Array()));
}

/** An agent whose handler records its contexts and never settles on `hang`, answering anything else. */
function hangingAgent(h: Harness, id: string, contexts: AgentCtx[], calls: string[], settings: { timeoutMs?: number; maxAttempts: number }) {
  let builder = Agent.builder()
    .id(id)
    .listenOn(AgentTopic.Sessions)
    .respondOn(AgentTopic.Sessions)
    .pollInterval(10)
    .heartbeats(false)
    .retry({ maxAttempts: settings.maxAttempts, baseDelayMs: 0 });
  if (settings.timeoutMs !== undefined) builder = builder.handlerTimeout(settings.timeoutMs);
  return builder
    .handler((m, ctx) => {
      const t = body(m.envelope?.body);
      calls.push(t);
      if (t !== 'hang') return ctx.respond(text.encode(`done ${t}`));
      contexts.push(ctx);
      // Ignores its signal and never settles.
      return never;
    })
    .spawn(h.laser);
}

describe("a command's own deadline bounds its handler attempt", () => {
  it('ends the attempt at the deadline when it comes before the timeout: no retry, DeadlineExceeded, a reply not worth retrying', async () => {
    const clock = new TestClock(START);
    const h = await harness(1, { clock });
    const contexts: AgentCtx[] = [];
    const calls: string[] = [];
    await using agent = hangingAgent(h, 'hasty', contexts, calls, { timeoutMs: 10_000, maxAttempts: 3 });
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('hang').withDeadlineMicros(START + 1_000_000n), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);

    await eventually(() => contexts.length === 1, 5_000, 'the attempt');
    const first = contexts[0] as AgentCtx;
    // At the deadline itself the command is not yet past it (as at pick-up); one µs later it is.
    clock.advanceMs(1_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.signal.aborted).toBe(false);
    clock.advance(1n);
    expect(first.signal.aborted).toBe(true);
    expect(first.signal.reason).toBeInstanceOf(TimeoutError);
    expect((first.signal.reason as Error).message).toContain("the command's deadline");

    await eventually(() => calls.includes('after') && agent.stats['dead-lettered'] === 1, 5_000, 'the letter and the next record');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(letter?.attempts).toBe(1);
    expect(letter?.detail).toBe(`the command's deadline (${START + 1_000_000n} µs) passed while the handler ran, on attempt 1`);
    // Attempts were left, but none was started past the deadline.
    expect(contexts).toHaveLength(1);
    await eventually(async () => (await errorReplies(h, 'hasty')).length === 1, 5_000, 'the error reply');
    const [reply] = await errorReplies(h, 'hasty');
    expect(reply?.code).toBe(AgentErrorCode.DeadlineExceeded);
    expect(reply?.retryable).toBe(false);
    expect(reply?.message).toContain(`the command's deadline (${START + 1_000_000n} µs) passed while the handler ran`);

    // Late effects are refused with the attempt's error, and nothing of them reaches the log.
    await expect(first.respond(text.encode('late'))).rejects.toBe(first.signal.reason);
    await expect(first.emit(text.encode('late event'))).rejects.toBeInstanceOf(TimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await writtenBy(h, 'hasty')).map((e) => `${e.kind}:${body(e.body)}`).filter((a) => !a.startsWith('error:'))).toEqual(['response:done after']);
  });

  it('times out first when the timeout comes before the deadline, and the retry ends at the deadline', async () => {
    const clock = new TestClock(START);
    const h = await harness(1, { clock });
    const contexts: AgentCtx[] = [];
    const calls: string[] = [];
    await using agent = hangingAgent(h, 'patient-ish', contexts, calls, { timeoutMs: 1_000, maxAttempts: 3 });
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('hang').withDeadlineMicros(START + 1_500_000n), ContentType.raw);

    await eventually(() => contexts.length === 1, 5_000, 'the first attempt');
    const first = contexts[0] as AgentCtx;
    clock.advanceMs(1_000);
    expect(first.signal.aborted).toBe(true);
    expect((first.signal.reason as Error).message).toContain('timeout of 1000 ms');

    // The retry starts before the deadline; its own limit is the 500 ms left, not the timeout.
    await eventually(() => contexts.length === 2, 5_000, 'the retry');
    const second = contexts[1] as AgentCtx;
    expect(second.signal.aborted).toBe(false);
    clock.advanceMs(500);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second.signal.aborted).toBe(false);
    clock.advance(1n);
    expect(second.signal.aborted).toBe(true);
    expect(second.signal.reason).toBeInstanceOf(TimeoutError);
    expect((second.signal.reason as Error).message).toContain("the command's deadline");

    await eventually(() => agent.stats['dead-lettered'] === 1, 5_000, 'the letter');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(letter?.attempts).toBe(2);
    expect(letter?.detail).toBe(`the command's deadline (${START + 1_500_000n} µs) passed while the handler ran, on attempt 2`);
    expect(contexts).toHaveLength(2);
    await eventually(async () => (await errorReplies(h, 'patient-ish')).length === 1, 5_000, 'the error reply');
    expect((await errorReplies(h, 'patient-ish'))[0]?.retryable).toBe(false);
  });

  it('dead-letters a command already past its deadline at pick-up without running the handler (unchanged)', async () => {
    const clock = new TestClock(START);
    const h = await harness(1, { clock });
    const contexts: AgentCtx[] = [];
    const calls: string[] = [];
    await using agent = hangingAgent(h, 'too-late', contexts, calls, { timeoutMs: 1_000, maxAttempts: 3 });
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('hang').withDeadlineMicros(START - 1n), ContentType.raw);
    await eventually(() => agent.stats['dead-lettered'] === 1, 5_000, 'the letter');
    expect(calls).toEqual([]);
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(letter?.attempts).toBe(0);
    expect(letter?.detail).toBe('message past its deadline');
    await eventually(async () => (await errorReplies(h, 'too-late')).length === 1, 5_000, 'the error reply');
    const [reply] = await errorReplies(h, 'too-late');
    expect(reply?.code).toBe(AgentErrorCode.DeadlineExceeded);
    expect(reply?.retryable).toBe(false);
  });

  it('bounds the attempt by the deadline alone when no handler timeout is set', async () => {
    const clock = new TestClock(START);
    const h = await harness(1, { clock });
    const contexts: AgentCtx[] = [];
    const calls: string[] = [];
    await using agent = hangingAgent(h, 'untimed', contexts, calls, { maxAttempts: 3 });
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('hang').withDeadlineMicros(START + 2_000_000n), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('after'), ContentType.raw);
    await eventually(() => contexts.length === 1, 5_000, 'the attempt');
    const first = contexts[0] as AgentCtx;
    // The deadline is the one thing armed for the attempt.
    expect(clock.pendingSleeps).toBe(1);
    clock.advanceMs(2_000);
    expect(first.signal.aborted).toBe(false);
    clock.advance(1n);
    expect(first.signal.aborted).toBe(true);
    expect((first.signal.reason as Error).message).toContain("the command's deadline");
    // The hung handler no longer holds its partition.
    await eventually(() => calls.includes('after') && agent.stats['dead-lettered'] === 1, 5_000, 'the letter and the next record');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.DeadlineExceeded);
    expect(letter?.attempts).toBe(1);
    expect(contexts).toHaveLength(1);
    expect((await errorReplies(h, 'untimed'))[0]?.retryable).toBe(false);
  });

  it('lets a handler that answers in time finish: nothing aborts, nothing stays armed', async () => {
    for (const timeoutMs of [undefined, 5_000]) {
      const clock = new TestClock(START);
      const h = await harness(1, { clock });
      let ctxSeen: AgentCtx | undefined;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let builder = Agent.builder().id('prompt').listenOn(AgentTopic.Sessions).respondOn(AgentTopic.Sessions).pollInterval(10).heartbeats(false);
      if (timeoutMs !== undefined) builder = builder.handlerTimeout(timeoutMs);
      const agent = builder
        .handler(async (_m, ctx) => {
          ctxSeen = ctx;
          await held;
          await ctx.respond(text.encode('in time'));
        })
        .spawn(h.laser);
      try {
        await agent.ready();
        await h.laser.publish(AgentTopic.Sessions, command('quick').withDeadlineMicros(START + 1_000_000n), ContentType.raw);
        await eventually(() => ctxSeen !== undefined, 5_000, 'the handler');
        expect(clock.pendingSleeps).toBe(1);
        clock.advanceMs(999);
        release();
        await eventually(() => agent.stats.handled === 1, 5_000, 'the record handled');
        // The deadline's timer was cancelled when the handler settled: passing it changes nothing.
        expect(clock.pendingSleeps).toBe(0);
        clock.advanceMs(60_000);
        expect(ctxSeen?.signal.aborted).toBe(false);
        expect((await writtenBy(h, 'prompt')).map((e) => `${e.kind}:${body(e.body)}`)).toEqual(['response:in time']);
        expect(await deadLetters(h.log)).toHaveLength(0);
      } finally {
        await agent.shutdown();
      }
    }
  });

  it('arms nothing for a command without a deadline on an agent without a timeout', async () => {
    const clock = new TestClock(START);
    const h = await harness(1, { clock });
    let ctxSeen: AgentCtx | undefined;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await using agent = Agent.builder()
      .id('plain')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .pollInterval(10)
      .heartbeats(false)
      .handler(async (_m, ctx) => {
        ctxSeen = ctx;
        await held;
        await ctx.respond(text.encode('whenever'));
      })
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('slow'), ContentType.raw);
    await eventually(() => ctxSeen !== undefined, 5_000, 'the handler');
    expect(clock.pendingSleeps).toBe(0);
    clock.advanceMs(24 * 3_600_000);
    expect(ctxSeen?.signal.aborted).toBe(false);
    release();
    await eventually(() => agent.stats.handled === 1, 5_000, 'the record handled');
    expect(await deadLetters(h.log)).toHaveLength(0);
  });
});
