/**
 * The crash-loop guard's scenarios, transport-neutral (run on MemoryLog and over Iggy TCP): a
 * record whose handling kills the process is dead-lettered after the limit even though every
 * restart counts its attempts from zero, and ordinary restarts dead-letter nothing.
 */
import { Agent, AgentTopic, RESUME_MARKER_TOPIC, type AgdxClient, type AgentHandle, type AgentMessage } from '@agdx/agents';
import { ContentType, DeadLetterReason } from '@agdx/wire';
import { expect } from 'vitest';
import type { RuntimeEnv, RuntimeEnvFactory } from './env.js';
import { deadLetters, eventually, readAll } from './harness.js';
import { command } from './scenarios.js';

const bodyText = (message: AgentMessage): string => new TextDecoder().decode(message.envelope?.body ?? new Uint8Array());

async function within(open: RuntimeEnvFactory, body: (env: RuntimeEnv) => Promise<void>): Promise<void> {
  const env = await open(1);
  try {
    await body(env);
  } finally {
    await env.close();
  }
}

/** The marker records on the stream (none before the first guarded resume created the topic). */
async function markers(env: RuntimeEnv): Promise<number> {
  try {
    return (await readAll(env.transport, RESUME_MARKER_TOPIC, env.stream)).length;
  } catch {
    return 0;
  }
}

/**
 * A handler that "kills the process" on the record `poison`: the agent is hard-stopped at once
 * (nothing more is committed, as when the process dies) and the handler never settles. Every
 * start runs on a connection of its own (a process of its own) with attempts counted from zero;
 * after `maxAttempts` starts died at the record, the next start dead-letters it (RetryExhausted,
 * its detail naming the crash loop) without running the handler, and handles the records after it.
 */
export function crashLoopIsDeadLettered(open: RuntimeEnvFactory): Promise<void> {
  return within(open, async (env) => {
    const maxAttempts = 3;
    const handled: string[] = [];
    let poisonRuns = 0;
    let current: AgentHandle | undefined;
    const spawn = (client: AgdxClient): AgentHandle =>
      Agent.builder()
        .id('fragile')
        .listenOn(AgentTopic.Sessions)
        .retry({ maxAttempts, baseDelayMs: 1 })
        .pollInterval(20)
        .handler((message) => {
          const body = bodyText(message);
          if (body !== 'poison') {
            handled.push(body);
            return;
          }
          poisonRuns++;
          void current?.abort();
          return new Promise<void>(() => undefined);
        })
        .spawn(client);

    // A first life handles one record and shuts down cleanly, so every later start resumes at the poison.
    current = spawn(await env.connect());
    await current.ready();
    await env.laser.publish(AgentTopic.Sessions, command('before'), ContentType.raw);
    await eventually(() => handled.includes('before'), 10_000, 'the record before the poison');
    await current.shutdown();
    const poison = await env.laser.publish(AgentTopic.Sessions, command('poison'), ContentType.raw);
    for (const body of ['after-1', 'after-2']) await env.laser.publish(AgentTopic.Sessions, command(body), ContentType.raw);

    for (let start = 1; start <= maxAttempts; start++) {
      current = spawn(await env.connect());
      await current.ready();
      await eventually(() => poisonRuns === start, 10_000, `crash ${start}`);
      await current.join().catch(() => undefined);
    }
    expect(await deadLetters(env.transport, env.stream)).toHaveLength(0);

    // The next start does not run the handler on the poison: it dead-letters it and moves on.
    current = spawn(await env.connect());
    await current.ready();
    await eventually(() => handled.includes('after-2'), 10_000, 'the records after the poison');
    await current.shutdown();
    expect(poisonRuns).toBe(maxAttempts);
    expect(handled).toEqual(['before', 'after-1', 'after-2']);
    const letters = await deadLetters(env.transport, env.stream);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe(DeadLetterReason.RetryExhausted);
    expect(letters[0]?.attempts).toBe(maxAttempts);
    expect(letters[0]?.detail).toContain('crash loop');
    expect(letters[0]?.source.partitionId).toBe(poison.partition);
    expect(letters[0]?.source.offset).toBe(poison.offset);
    // One marker per start that had a record to resume at; none per record handled.
    expect(await markers(env)).toBe(1 + maxAttempts + 1);

    // Committed past the poison: a fresh start of the group handles nothing again.
    const late: string[] = [];
    const probe = Agent.builder().id('fragile').listenOn(AgentTopic.Sessions).handler((m) => void late.push(bodyText(m))).spawn(await env.connect());
    await probe.ready();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await probe.shutdown();
    expect(late).toEqual([]);
  });
}

/**
 * Restarts that are not crashes (clean shutdowns with and without a backlog, idle restarts, and
 * one restart after a crash below the limit) dead-letter nothing, even with the lowest limit, and
 * write at most one marker per start.
 */
export function normalRestartsDeadLetterNothing(open: RuntimeEnvFactory): Promise<void> {
  return within(open, async (env) => {
    const handled: string[] = [];
    let crashOn: string | undefined;
    let current: AgentHandle | undefined;
    const spawn = async (): Promise<AgentHandle> => {
      const agent = Agent.builder()
        .id('steady')
        .listenOn(AgentTopic.Sessions)
        .retry({ maxAttempts: 1, baseDelayMs: 1 })
        .crashLoopGuard({ maxResumes: 2 })
        .pollInterval(20)
        .handler((message) => {
          const body = bodyText(message);
          handled.push(body);
          if (body === crashOn) {
            crashOn = undefined;
            void current?.abort();
            return new Promise<void>(() => undefined);
          }
          return undefined;
        })
        .spawn(await env.connect());
      current = agent;
      await agent.ready();
      return agent;
    };
    let starts = 0;
    let sent = 0;
    const publish = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await env.laser.publish(AgentTopic.Sessions, command(`r-${sent++}`), ContentType.raw);
    };
    // Clean restarts, each with new work arriving while it runs.
    for (let round = 0; round < 4; round++) {
      const agent = await spawn();
      starts++;
      await publish(2);
      await eventually(() => handled.length === sent, 10_000, `round ${round}`);
      await agent.shutdown();
    }
    // Clean restarts with a backlog waiting, and idle restarts with none.
    for (let round = 0; round < 3; round++) {
      await publish(3);
      const agent = await spawn();
      starts++;
      await eventually(() => handled.length === sent, 10_000, `backlog round ${round}`);
      await agent.shutdown();
      const idle = await spawn();
      starts++;
      await idle.shutdown();
    }
    // One crash below the limit: the restarted agent handles the record again.
    crashOn = `r-${sent}`;
    await publish(2);
    const crashing = await spawn();
    starts++;
    await eventually(() => crashOn === undefined, 10_000, 'the crash');
    await crashing.join().catch(() => undefined);
    const after = await spawn();
    starts++;
    await eventually(() => handled.includes(`r-${sent - 1}`), 10_000, 'the records after the crash');
    await after.shutdown();

    expect(await deadLetters(env.transport, env.stream)).toHaveLength(0);
    expect(new Set(handled)).toEqual(new Set(Array.from({ length: sent }, (_, i) => `r-${i}`)));
    // Only the crashed record ran twice.
    expect(handled.length).toBe(sent + 1);
    // Idle starts wrote no marker; every other start wrote one.
    expect(await markers(env)).toBe(starts - 3);
  });
}
