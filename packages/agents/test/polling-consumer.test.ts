/**
 * The consumer loop on a log whose waits poll (Iggy), where every read and commit is a request
 * on a connection that carries one at a time: commits that cover only skipped records linger
 * longer than commits of work, and while records flow a partition that just read empty is not
 * read again in every round. Held on a MemoryLog that declares `waitsByPolling`, with faked
 * timers so the pauses are exact.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryLog, type GroupMember, type JoinGroupRequest, type LogTransport, type ReadRequest } from '@agdx/transport';
import { ASSIGNMENT_RECHECK_MS, COMMIT_LINGER_MS, ConsumerLoop, EMPTY_PARTITION_PAUSE_MS, LAZY_COMMIT_MS } from '../src/agent/consumer-loop.js';
import { overriding } from './support-runtime/overriding.js';

const STREAM = 's';
const TOPIC = 't';
const payload = new Uint8Array([1]);

interface Counted {
  readonly transport: LogTransport;
  readonly commits: { partition: number; offset: bigint }[];
  readonly reads: Map<number, number>;
  readonly assignments: number[];
}

/** A MemoryLog connection that says its waits poll, counting group commits and reads per partition. */
function pollingLog(log: MemoryLog): Counted {
  const commits: { partition: number; offset: bigint }[] = [];
  const reads = new Map<number, number>();
  const assignments: number[] = [];
  const joinGroup = async (request: JoinGroupRequest): Promise<GroupMember> => {
    const member = await log.joinGroup(request);
    return overriding(member, {
      assignment: (options?: { signal?: AbortSignal }) => {
        assignments.push(performance.now());
        return member.assignment(options);
      },
      commit: (partition: number, offset: bigint, options?: { signal?: AbortSignal }): Promise<void> => {
        commits.push({ partition, offset });
        return member.commit(partition, offset, options);
      },
    });
  };
  const read = (request: ReadRequest) => {
    reads.set(request.partition, (reads.get(request.partition) ?? 0) + 1);
    return log.read(request);
  };
  return { transport: overriding(log, { waitsByPolling: true, joinGroup, read }), commits, reads, assignments };
}

async function topicWith(partitions: number, records: number): Promise<MemoryLog> {
  const log = new MemoryLog();
  await log.ensureStream(STREAM);
  await log.ensureTopic({ stream: STREAM, topic: TOPIC }, { partitions });
  if (records > 0) await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: Array.from({ length: records }, () => ({ payload })) });
  return log;
}

const realImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Lets `ms` of faked time pass a millisecond at a time, with a real macrotask after each step:
 * the loop yields to the event loop through setImmediate, which the fake clock does not drive.
 */
async function pass(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    await vi.advanceTimersByTimeAsync(1);
    await realImmediate();
  }
}

function loop(transport: LogTransport, consume: ConstructorParameters<typeof ConsumerLoop>[0]['consume'], idleWaitMs = 100): ConsumerLoop {
  return new ConsumerLoop({
    transport,
    stream: STREAM,
    topic: TOPIC,
    group: 'g',
    parallelism: 8,
    maxQueuedRecords: 64,
    idleWaitMs,
    retryDelayMs: 10,
    consume,
    replayable: (outcome) => outcome === 'skipped',
    pipelineDepth: 8,
    onError: (error) => {
      throw error;
    },
  });
}

describe('consumer loop on a polling log', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('commits records it skipped after LAZY_COMMIT_MS, and records with work among them after COMMIT_LINGER_MS', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(1, 3);
    const counted = pollingLog(log);
    const outcomes = ['skipped', 'skipped', 'skipped', 'skipped', 'handled'];
    let consumed = 0;
    const consumer = loop(counted.transport, async () => outcomes[consumed++]);
    await consumer.start();
    const running = consumer.run();
    await pass(LAZY_COMMIT_MS - 50);
    expect(consumed).toBe(3);
    // Only skipped records so far: their commit still waits.
    expect(counted.commits).toEqual([]);
    await pass(60);
    expect(counted.commits).toEqual([{ partition: 0, offset: 2n }]);

    await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload }, { payload }] });
    // Read within one idle pause (at most idleWaitMs, 100 ms), committed COMMIT_LINGER_MS later:
    // well before a lazy commit would be due.
    await pass(100 + COMMIT_LINGER_MS + 20);
    expect(LAZY_COMMIT_MS).toBeGreaterThan(COMMIT_LINGER_MS + 20);
    expect(consumed).toBe(5);
    expect(counted.commits).toEqual([
      { partition: 0, offset: 2n },
      { partition: 0, offset: 4n },
    ]);
    await consumer.stop();
    await running;
  });

  it('a stop commits skipped records at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(1, 2);
    const counted = pollingLog(log);
    let consumed = 0;
    const consumer = loop(counted.transport, async () => {
      consumed++;
      return 'skipped';
    });
    await consumer.start();
    const running = consumer.run();
    await pass(30);
    expect(consumed).toBe(2);
    expect(counted.commits).toEqual([]);
    await consumer.stop();
    await running;
    expect(counted.commits).toEqual([{ partition: 0, offset: 1n }]);
    expect(await log.getOffset({ stream: STREAM, topic: TOPIC, partition: 0, consumer: { kind: 'group', name: 'g' } })).toBe(1n);
  });

  it('while one partition delivers records, the empty ones are read again only after EMPTY_PARTITION_PAUSE_MS', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(8, 1);
    const counted = pollingLog(log);
    const flow = 40;
    let consumed = 0;
    // Each record of partition 0 appends the next one: records keep flowing there while the
    // other seven partitions stay empty, with no fake time passing.
    const consumer = loop(counted.transport, async () => {
      consumed++;
      if (consumed < flow) await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload }] });
      return 'handled';
    });
    await consumer.start();
    const running = consumer.run();
    for (let i = 0; i < 1_000 && consumed < flow; i++) {
      await vi.advanceTimersByTimeAsync(0);
      await realImmediate();
    }
    expect(consumed).toBe(flow);
    const partition0 = counted.reads.get(0) ?? 0;
    expect(partition0).toBeGreaterThanOrEqual(flow / 2);
    // The empty partitions were read only in the rounds that delivered nothing (partition 0's
    // next record not appended yet), not in every round as partition 0 was.
    const during = [1, 2, 3, 4, 5, 6, 7].map((p) => counted.reads.get(p) ?? 0);
    for (const reads of during) expect(reads).toBeLessThanOrEqual(partition0 / 4);
    // Once the flow stopped, they are read again.
    await pass(EMPTY_PARTITION_PAUSE_MS + 2);
    for (let p = 1; p < 8; p++) expect(counted.reads.get(p) ?? 0).toBeGreaterThan(during[p - 1] as number);
    await consumer.stop();
    await running;
  });

  it('with a short poll interval asks for the group assignment at most once per ASSIGNMENT_RECHECK_MS', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(2, 0);
    const counted = pollingLog(log);
    const consumer = loop(counted.transport, async () => 'handled', 5);
    await consumer.start();
    const running = consumer.run();
    await pass(1_000);
    // Idle rounds come every 5 ms at most; the assignment is asked about ten times a second.
    expect(counted.reads.get(0) ?? 0).toBeGreaterThan(100);
    expect(counted.assignments.length).toBeGreaterThanOrEqual(5);
    expect(counted.assignments.length).toBeLessThanOrEqual(1_000 / ASSIGNMENT_RECHECK_MS + 1);
    for (let i = 1; i < counted.assignments.length; i++) expect((counted.assignments[i] as number) - (counted.assignments[i - 1] as number)).toBeGreaterThanOrEqual(ASSIGNMENT_RECHECK_MS);
    await consumer.stop();
    await running;
  });
});
