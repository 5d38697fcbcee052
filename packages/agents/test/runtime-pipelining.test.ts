import { AgdxClient, Agent, AgentTopic, readAgentMessage, type AgentBuilder, type AgentCtx, type AgentHandle, type AgentMessage } from '@agdx/agents';
import { TransportFailureError, type AppendRequest, type AppendResult, type LogTransport, type MemoryLog } from '@agdx/transport';
import { ContentType, ConversationId, DeadLetterReason, IdempotencyKey, InvalidError } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM, text } from './support-runtime/harness.js';
import { command } from './support-runtime/scenarios.js';

/**
 * The log as the agent sees it: appends to `topic` wait until the gate opens (and then fail while
 * `failing` is set), so a test can hold answers unacknowledged and count them in flight.
 */
function gatedLog(log: MemoryLog, topic: string) {
  const state = { open: false, failing: false, failNext: 0, appends: 0, inFlight: 0, maxInFlight: 0 };
  let waiting: (() => void)[] = [];
  const append = async (request: AppendRequest): Promise<AppendResult> => {
    if (request.topic !== topic) return log.append(request);
    state.appends++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    try {
      while (!state.open) await new Promise<void>((resolve) => waiting.push(resolve));
      if (state.failing) throw new TransportFailureError('the broker is gone');
      if (state.failNext > 0) {
        state.failNext--;
        throw new TransportFailureError('a hiccup');
      }
      return await log.append(request);
    } finally {
      state.inFlight--;
    }
  };
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'append') return append;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return {
    transport,
    state,
    open(): void {
      state.open = true;
      const wake = waiting;
      waiting = [];
      for (const resolve of wake) resolve();
    },
  };
}

/**
 * An agent listening on agent.sessions and answering on agent.responses (no heartbeats, no
 * control), refined by `configure`.
 */
function answering(id: string, handler: (message: AgentMessage, ctx: AgentCtx) => Promise<void>, client: AgdxClient, configure: (b: AgentBuilder) => AgentBuilder = (b) => b): AgentHandle {
  const builder = Agent.builder().id(id).listenOn(AgentTopic.Sessions).respondOn(AgentTopic.Responses).heartbeats(false).followControl(false).handler(handler);
  return configure(builder).spawn(client);
}

async function committed(log: MemoryLog, group: string, partition = 0): Promise<bigint | undefined> {
  return log.getOffset({ stream: STREAM, topic: AgentTopic.Sessions, partition, consumer: { kind: 'group', name: group } });
}

describe('pipelined answers', () => {
  it('handles the next records while earlier answers are unacknowledged, keeps their order, and commits only acknowledged records', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    let returned = 0;
    await using agent = answering(
      'streamer',
      async (message, ctx) => {
        const writer = ctx.stream('chat');
        for (let c = 0; c < 3; c++) await writer.write(text.encode(`token ${c}`));
        await writer.finish('stop');
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
        returned++;
      },
      AgdxClient.from(gate.transport, { stream: STREAM }),
    );
    await agent.ready();
    const conversation = ConversationId.new();
    const commands = Array.from({ length: 5 }, (_, i) => command(`job ${i}`, conversation));
    for (const c of commands) await h.laser.publish(AgentTopic.Sessions, c, ContentType.raw);

    // Every handler returned although no answer is acknowledged: nothing may be committed yet,
    // and one conversation's answers have one append in flight at a time.
    await eventually(() => returned === 5, 5_000, 'five handlers to return');
    expect(await committed(h.log, 'streamer')).toBeUndefined();
    expect(gate.state.maxInFlight).toBe(1);

    gate.open();
    await eventually(async () => (await committed(h.log, 'streamer')) === 4n, 5_000, 'the commit after the acknowledgments');
    // 25 answers (4 chunks and a response per command) went out in far fewer appends.
    expect(gate.state.appends).toBeLessThan(25);
    const answers = (await readAll(h.log, AgentTopic.Responses)).map((r) => readAgentMessage(r, { stream: STREAM, topic: AgentTopic.Responses }).envelope);
    expect(answers).toHaveLength(25);
    answers.forEach((answer, i) => {
      const request = commands[Math.floor(i / 5)];
      expect(answer?.correlation?.toString()).toBe(request?.correlation?.toString());
      expect(answer?.kind).toBe(i % 5 === 4 ? 'response' : 'chunk');
      if (i % 5 !== 4) expect(answer?.sequence).toBe(BigInt(i % 5));
    });
  });

  it('redelivers records whose answers were never acknowledged when the agent dies', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    let returned = 0;
    const first = answering(
      'worker',
      async (message, ctx) => {
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
        returned++;
      },
      AgdxClient.from(gate.transport, { stream: STREAM }),
    );
    await first.ready();
    for (let i = 0; i < 3; i++) await h.laser.publish(AgentTopic.Sessions, command(`job ${i}`), ContentType.raw);
    await eventually(() => returned === 3, 5_000, 'three handlers to return');
    await first.abort();
    expect(await committed(h.log, 'worker')).toBeUndefined();

    const seen: string[] = [];
    await using second = answering(
      'worker',
      async (message, ctx) => {
        seen.push(new TextDecoder().decode(message.envelope?.body));
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
      },
      h.connect(),
    );
    await second.ready();
    await eventually(async () => (await committed(h.log, 'worker')) === 2n, 5_000, 'the second member to commit');
    expect(seen).toEqual(['job 0', 'job 1', 'job 2']);
  });

  it('a failed answer fails the attempt: retried, then dead-lettered RetryExhausted', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    gate.state.failing = true;
    gate.open();
    let attempts = 0;
    await using agent = answering(
      'unlucky',
      async (message, ctx) => {
        attempts++;
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
      },
      AgdxClient.from(gate.transport, { stream: STREAM }), (b) => b.retry({ maxAttempts: 3, baseDelayMs: 1 }),
    );
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('doomed'), ContentType.raw);
    await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a dead letter');
    const [letter] = await deadLetters(h.log);
    expect(letter?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letter?.attempts).toBe(3);
    expect(letter?.detail).toContain('the broker is gone');
    expect(attempts).toBe(3);
    await eventually(async () => (await committed(h.log, 'unlucky')) === 0n, 5_000, 'the dead-lettered record to be committed');
  });

  it('retries a failed answer while a later record with the same idempotency key waits, without a deadlock', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    gate.state.failNext = 1;
    gate.open();
    const attempts: string[] = [];
    // All three are on the log before the agent reads, so the second is picked up while the
    // first's answer is still failing.
    const conversation = ConversationId.new();
    await h.laser.publish(AgentTopic.Sessions, command('first', conversation).withIdempotencyKey(IdempotencyKey.new('k-1')), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('again', conversation).withIdempotencyKey(IdempotencyKey.new('k-1')), ContentType.raw);
    await h.laser.publish(AgentTopic.Sessions, command('other', conversation), ContentType.raw);
    await using agent = answering(
      'keyed',
      async (message, ctx) => {
        attempts.push(new TextDecoder().decode(message.envelope?.body));
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
      },
      AgdxClient.from(gate.transport, { stream: STREAM }), (b) => b.retry({ maxAttempts: 3, baseDelayMs: 1 }),
    );
    await agent.ready();
    await eventually(async () => (await committed(h.log, 'keyed')) === 2n, 5_000, 'all three records committed');
    // The failed answer made the first record run twice; the second record is a duplicate.
    expect(attempts.filter((a) => a === 'first')).toHaveLength(2);
    expect(attempts).not.toContain('again');
    expect(agent.stats).toMatchObject({ handled: 2, duplicate: 1 });
  });

  it('re-reads a record whose dead letter could not be written, with the records handled after it', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, 'agent.dlq');
    gate.state.failNext = 1;
    gate.open();
    const seen: string[] = [];
    const conversation = ConversationId.new();
    for (const body of ['poison', 'next', 'last']) await h.laser.publish(AgentTopic.Sessions, command(body, conversation), ContentType.raw);
    await using agent = answering(
      'careful',
      async (message, ctx) => {
        const body = new TextDecoder().decode(message.envelope?.body);
        seen.push(body);
        if (body === 'poison') throw new InvalidError('not this one');
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
      },
      AgdxClient.from(gate.transport, { stream: STREAM }), (b) => b.pollInterval(5),
    );
    await agent.ready();
    await eventually(async () => (await committed(h.log, 'careful')) === 2n, 5_000, 'every record committed');
    // The first dead letter failed, so the poison record was read again (and everything after
    // it); on that read only its letter was appended again, the handler did not run a second time.
    expect(seen.filter((b) => b === 'poison')).toHaveLength(1);
    expect(seen.filter((b) => b === 'next').length).toBeGreaterThanOrEqual(1);
    expect(seen.filter((b) => b === 'last').length).toBeGreaterThanOrEqual(1);
    expect(await deadLetters(h.log)).toHaveLength(1);
    expect(agent.errors.some((e) => String((e as Error).message).includes('a hiccup'))).toBe(true);
  });

  it('bounds the answers in flight across conversations, and pipelining(false) awaits every answer', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    let returned = 0;
    await using agent = answering(
      'bounded',
      async (message, ctx) => {
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
        returned++;
      },
      AgdxClient.from(gate.transport, { stream: STREAM }), (b) => b.pipelining({ maxInFlightAppends: 2 }),
    );
    await agent.ready();
    for (let i = 0; i < 6; i++) await h.laser.publish(AgentTopic.Sessions, command(`job ${i}`), ContentType.raw);
    await eventually(() => gate.state.inFlight === 2, 5_000, 'two answers in flight');
    // The third answer waits for room, so its handler has not returned.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(returned).toBe(2);
    gate.open();
    await eventually(async () => (await committed(h.log, 'bounded')) === 5n, 5_000, 'every record committed');
    expect(gate.state.maxInFlight).toBe(2);
    await agent.shutdown();

    const serialGate = gatedLog(h.log, AgentTopic.Responses);
    let serialReturned = 0;
    await using serial = answering(
      'serial',
      async (message, ctx) => {
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
        serialReturned++;
      },
      AgdxClient.from(serialGate.transport, { stream: STREAM }), (b) => b.pipelining(false),
    );
    await serial.ready();
    await eventually(() => serialGate.state.inFlight === 1, 5_000, 'the first answer in flight');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(serialReturned).toBe(0);
    serialGate.open();
    await eventually(async () => (await committed(h.log, 'serial')) === 5n, 5_000, 'every record committed');
    expect(serialGate.state.maxInFlight).toBe(1);
  });

  it('a handler that throws mid-stream with its chunks in flight is retried, and the window gets the room of those chunks back', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    const attempts: string[] = [];
    await using agent = answering(
      'midstream',
      async (message, ctx) => {
        const body = new TextDecoder().decode(message.envelope?.body);
        attempts.push(body);
        const writer = ctx.stream('chat');
        await writer.write(text.encode(`${body} part`));
        await writer.flush();
        // The first attempt of the first record dies with its chunk still unacknowledged.
        if (body === 'job 0' && attempts.length === 1) throw new TransportFailureError('the model went away');
        await writer.finish('stop');
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
      },
      AgdxClient.from(gate.transport, { stream: STREAM }),
      // One append in flight at a time: a chunk of the failed attempt never given back would stall every later answer.
      (b) => b.pipelining({ maxInFlightAppends: 1 }).retry({ maxAttempts: 3, baseDelayMs: 1 }),
    );
    await agent.ready();
    for (let i = 0; i < 3; i++) await h.laser.publish(AgentTopic.Sessions, command(`job ${i}`), ContentType.raw);
    await eventually(() => gate.state.inFlight === 1, 5_000, 'the first chunk in flight');
    gate.open();
    await eventually(async () => (await committed(h.log, 'midstream')) === 2n, 5_000, 'every record committed');
    // Other conversations' records may run while the first one's retry waits for its backoff.
    expect([...attempts].sort()).toEqual(['job 0', 'job 0', 'job 1', 'job 2']);
    expect(gate.state.maxInFlight).toBe(1);
    expect(agent.stats).toMatchObject({ handled: 3 });
  });

  it('shutdown while answers are pipelined waits for their acknowledgment, then commits; one never acknowledged ends in TimeoutError, not a hang', async () => {
    const h = await harness();
    const gate = gatedLog(h.log, AgentTopic.Responses);
    let returned = 0;
    const agent = answering(
      'draining',
      async (message, ctx) => {
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
        returned++;
      },
      AgdxClient.from(gate.transport, { stream: STREAM }),
    );
    await agent.ready();
    for (let i = 0; i < 2; i++) await h.laser.publish(AgentTopic.Sessions, command(`job ${i}`), ContentType.raw);
    await eventually(() => returned === 2, 5_000, 'both handlers to return');
    let stopped = false;
    const shutdown = agent.shutdown().then(() => (stopped = true));
    // Several event-loop turns pass: the shutdown still waits for the answers in flight.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    expect(await committed(h.log, 'draining')).toBeUndefined();
    gate.open();
    await shutdown;
    expect(await committed(h.log, 'draining')).toBe(1n);

    const stuck = gatedLog(h.log, AgentTopic.Responses);
    let stuckReturned = 0;
    const never = answering(
      'stuck',
      async (message, ctx) => {
        await ctx.respond(message.envelope?.body ?? new Uint8Array());
        stuckReturned++;
      },
      AgdxClient.from(stuck.transport, { stream: STREAM }),
      (b) => b.shutdownGrace(20),
    );
    await never.ready();
    await eventually(() => stuckReturned === 2, 5_000, 'both handlers to return');
    await expect(never.shutdown()).rejects.toMatchObject({ kind: 'timeout' });
    expect(await committed(h.log, 'stuck')).toBeUndefined();
    stuck.open();
  });

  it('refuses limits that are not safe integers of at least 1', () => {
    expect(() => Agent.builder().pipelining({ maxInFlightAppends: 0 })).toThrow(InvalidError);
    expect(() => Agent.builder().pipelining({ maxInFlightBytes: 1.5 })).toThrow(InvalidError);
  });
});
