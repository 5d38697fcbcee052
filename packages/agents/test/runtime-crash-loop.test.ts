import { AgdxClient, Agent, AgentTopic, RESUME_MARKER_TOPIC, type AgentHandle } from '@agdx/agents';
import { TransportFailureError, type AppendRequest, type LogTransport } from '@agdx/transport';
import { ContentType } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { crashLoopIsDeadLettered, normalRestartsDeadLetterNothing } from './support-runtime/crash-loop-scenarios.js';
import { deadLetters, eventually, harness, STREAM } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';
import { command } from './support-runtime/scenarios.js';

describe('crash-loop guard (MemoryLog)', () => {
  it('dead-letters a record that kills the process on every start, after the limit, and handles the records after it', () => crashLoopIsDeadLettered(memoryEnv));

  it('dead-letters nothing over clean, idle and once-crashed restarts', () => normalRestartsDeadLetterNothing(memoryEnv));

  it('fails open: a marker the log refuses is reported, and the start handles its records unguarded', async () => {
    const h = await harness();
    const refusing = overriding(h.log, {
      append: (request: AppendRequest) =>
        request.topic === RESUME_MARKER_TOPIC ? Promise.reject(new TransportFailureError('no write grant for the marker topic')) : h.log.append(request),
    });
    const errors: unknown[] = [];
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id('unguarded')
      .listenOn(AgentTopic.Sessions)
      .onError((error) => void errors.push(error))
      .handler((m) => void handled.push(new TextDecoder().decode(m.envelope?.body)))
      .spawn(AgdxClient.from(refusing, { stream: STREAM }));
    await agent.ready();
    for (const body of ['a', 'b']) await h.laser.publish(AgentTopic.Sessions, command(body), ContentType.raw);
    await eventually(() => handled.length === 2, 5_000, 'both records');
    expect(handled).toEqual(['a', 'b']);
    expect(errors.some((e) => e instanceof TransportFailureError)).toBe(true);
    expect(await deadLetters(h.log)).toHaveLength(0);
  });

  it('is off with crashLoopGuard(false): no marker is written', async () => {
    const h = await harness();
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id('no-guard')
      .listenOn(AgentTopic.Sessions)
      .crashLoopGuard(false)
      .handler((m) => void handled.push(new TextDecoder().decode(m.envelope?.body)))
      .spawn(h.laser);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('x'), ContentType.raw);
    await eventually(() => handled.length === 1, 5_000, 'the record');
    await expect(h.log.describeTopic({ stream: STREAM, topic: RESUME_MARKER_TOPIC })).rejects.toThrow();
  });

  it('withdraws the marker of a start that stopped cleanly before running its record: clean stops never add up to a dead letter', async () => {
    const h = await harness();
    const maxAttempts = 2;
    const handled: string[] = [];
    let current: AgentHandle | undefined;
    let stopping: Promise<void> | undefined;
    // A clean shutdown that arrives just after the start's marker landed, before the handler ran
    // (a rolling restart, a scale-down): the start never ran the record, so it did not die at it.
    const stopAfterMarker = overriding(h.log, {
      append: async (request: AppendRequest) => {
        const appended = await h.log.append(request);
        if (request.topic === RESUME_MARKER_TOPIC && stopping === undefined) {
          stopping = current?.shutdown();
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
        return appended;
      },
    });
    const spawn = (transport: LogTransport): AgentHandle =>
      Agent.builder()
        .id('rolling')
        .listenOn(AgentTopic.Sessions)
        .retry({ maxAttempts, baseDelayMs: 1 })
        .pollInterval(20)
        .handler((m) => void handled.push(new TextDecoder().decode(m.envelope?.body)))
        .spawn(AgdxClient.from(transport, { stream: STREAM }));
    await h.laser.publish(AgentTopic.Sessions, command('survivor'), ContentType.raw);
    for (let start = 0; start < maxAttempts + 1; start++) {
      stopping = undefined;
      current = spawn(stopAfterMarker);
      await current.ready();
      await eventually(() => stopping !== undefined, 5_000, `stop ${start}`);
      await stopping;
    }
    expect(handled).toEqual([]);
    const last = spawn(h.log);
    await last.ready();
    await eventually(() => handled.length === 1, 5_000, 'the record');
    await last.shutdown();
    expect(handled).toEqual(['survivor']);
    expect(await deadLetters(h.log)).toHaveLength(0);
  });

  it('runs a suspect record alone: the record after it starts only once its offset is committed', async () => {
    const h = await harness();
    const group = 'careful';
    const committedAtStart: (bigint | undefined)[] = [];
    const spawn = (onRecord: (body: string) => Promise<void> | void) =>
      Agent.builder()
        .id(group)
        .listenOn(AgentTopic.Sessions)
        .handler(async (m) => {
          const body = new TextDecoder().decode(m.envelope?.body);
          committedAtStart.push(await h.log.getOffset({ stream: STREAM, topic: AgentTopic.Sessions, partition: 0, consumer: { kind: 'group', name: group } }));
          await onRecord(body);
        })
        .spawn(h.connect());
    for (const body of ['one', 'two']) await h.laser.publish(AgentTopic.Sessions, command(body), ContentType.raw);
    // The first life dies at `one` (hard stop, nothing committed).
    let first: ReturnType<typeof spawn> | undefined;
    first = spawn(async () => {
      await first?.abort();
      return new Promise<void>(() => undefined);
    });
    await first.ready();
    await eventually(() => committedAtStart.length === 1, 5_000, 'the crash');
    await first.join().catch(() => undefined);
    committedAtStart.length = 0;
    // The next life suspects `one`: it runs alone, and `two` starts after its commit.
    const second = spawn(() => undefined);
    await second.ready();
    await eventually(() => committedAtStart.length === 2, 5_000, 'both records');
    await second.shutdown();
    expect(committedAtStart).toEqual([undefined, 0n]);
  });
});
