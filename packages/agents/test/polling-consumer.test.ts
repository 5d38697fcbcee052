/**
 * The consumer loop on a log whose waits poll (Iggy), where every read and commit is a request
 * on a connection that carries one at a time: commits that cover only skipped records linger
 * longer than commits of work, and each partition is read on its own schedule (partition-pace.ts):
 * backing off while it reads empty, a moment after a read that drained it, at once after a full
 * read. Held on a MemoryLog that declares `waitsByPolling`, with faked
 * timers so the pauses are exact.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryLog, type GroupMember, type JoinGroupRequest, type LogTransport, type ReadRequest } from '@agdx/transport';
import { ASSIGNMENT_RECHECK_MS, COMMIT_LINGER_MS, ConsumerLoop, DRAINED_PAUSE_MS, DRAINED_TARGET_RECORDS, HOT_READS, HOT_WINDOW_MS, LAZY_COMMIT_MS, MAX_DRAINED_PAUSE_MS } from '../src/agent/consumer-loop.js';
import { overriding } from './support-runtime/overriding.js';

const STREAM = 's';
const TOPIC = 't';
const payload = new Uint8Array([1]);

interface Counted {
  readonly transport: LogTransport;
  readonly commits: { partition: number; offset: bigint }[];
  readonly reads: Map<number, number>;
  /** When each partition was read (performance.now() ms). */
  readonly readTimes: Map<number, number[]>;
  readonly assignments: number[];
}

/** A MemoryLog connection that says its waits poll, counting group commits and reads per partition. */
function pollingLog(log: MemoryLog): Counted {
  const commits: { partition: number; offset: bigint }[] = [];
  const reads = new Map<number, number>();
  const readTimes = new Map<number, number[]>();
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
    const times = readTimes.get(request.partition) ?? [];
    times.push(performance.now());
    readTimes.set(request.partition, times);
    return log.read(request);
  };
  return { transport: overriding(log, { waitsByPolling: true, joinGroup, read }), commits, reads, readTimes, assignments };
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

  it('a partition that keeps reading empty is read after pauses doubling from EMPTY_PARTITION_PAUSE_MS up to the idle wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(2, 0);
    const counted = pollingLog(log);
    const consumer = loop(counted.transport, async () => 'handled', 100);
    await consumer.start();
    const running = consumer.run();
    await pass(1_000);
    const at = counted.readTimes.get(1) ?? [];
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    // 4, 8, 16, 32, 64, then the idle wait: about 14 reads in a second, not one per round.
    expect(gaps.slice(0, 5)).toEqual([4, 8, 16, 32, 64].map((ms) => expect.closeTo(ms, 0)));
    for (const gap of gaps.slice(5)) expect(gap).toBeCloseTo(100, 0);
    expect(at.length).toBeLessThanOrEqual(16);
    await consumer.stop();
    await running;
  });

  it('a record landing on a partition in its longest pause is read within the idle wait; with records on one partition only, it is read again at once, HOT_READS times within HOT_WINDOW_MS', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(1, 0);
    const counted = pollingLog(log);
    const seen: number[] = [];
    const consumer = loop(counted.transport, async () => {
      seen.push(performance.now());
      return 'handled';
    }, 100);
    await consumer.start();
    const running = consumer.run();
    await pass(500);
    const appendedAt = performance.now();
    await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload }] });
    await pass(101);
    expect(seen.length).toBe(1);
    expect((seen[0] as number) - appendedAt).toBeLessThanOrEqual(100);
    // One partition delivering (one request in flight, say): the next record may come any moment.
    const reads = counted.readTimes.get(0) ?? [];
    const found = reads.findIndex((t) => t >= (seen[0] as number) - 1);
    const after = reads.slice(found + 1);
    expect(after.slice(0, HOT_READS + 1)).toEqual(Array.from({ length: HOT_READS + 1 }, () => reads[found]));
    expect(HOT_WINDOW_MS).toBeGreaterThan(0);
    // Then the pauses grow again, never past the idle wait.
    expect((after[HOT_READS + 1] as number) - (after[HOT_READS] as number)).toBeGreaterThan(0);
    await consumer.stop();
    await running;
  });

  it('with records on one partition only, the partition is read at once when its records were handled (their answers are out)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(1, 0);
    const counted = pollingLog(log);
    let settledAt = -1;
    const consumer = loop(counted.transport, async () => {
      // A slow answer: the hot reads after the record are long spent when it settles.
      await new Promise((resolve) => setTimeout(resolve, 37));
      settledAt = performance.now();
      return 'handled';
    }, 100);
    await consumer.start();
    const running = consumer.run();
    await pass(300);
    await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload }] });
    await pass(150);
    expect(settledAt).toBeGreaterThan(0);
    const reads = counted.readTimes.get(0) ?? [];
    expect(reads.some((t) => t === settledAt)).toBe(true);
    await consumer.stop();
    await running;
  });

  /** A busy stretch: a record on each of `partitions` partitions every `everyMs`, for `ms`; the read times of partition 0 in its second half. */
  async function busyStretch(partitions: number, everyMs: number, ms: number): Promise<{ reads: number[]; consumed: number }> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(partitions, 0);
    const counted = pollingLog(log);
    let consumed = 0;
    const consumer = loop(counted.transport, async () => {
      consumed++;
      return 'handled';
    }, 100);
    await consumer.start();
    const running = consumer.run();
    await pass(20);
    for (let t = 0; t < ms; t++) {
      if (t % everyMs === 0) {
        for (let partition = 0; partition < partitions; partition++) await log.append({ stream: STREAM, topic: TOPIC, routing: { partition }, records: [{ payload }] });
      }
      await pass(1);
    }
    await pass(20);
    const reads = (counted.readTimes.get(0) ?? []).filter((t) => t >= 20 + ms / 2 && t < 20 + ms);
    await consumer.stop();
    await running;
    return { reads, consumed };
  }

  it('with records on several partitions, a partition drained by a read is read again after DRAINED_PAUSE_MS or more, not at once', async () => {
    // A record on every partition each millisecond: the consumer is busy, and a partition whose
    // records come that fast keeps (about) the shortest pause.
    const { reads, consumed } = await busyStretch(4, 1, 80);
    expect(consumed).toBe(320);
    // Every read of the busy stretch found records and drained the partition: reads are at least
    // DRAINED_PAUSE_MS apart (before, each was followed by an immediate empty read).
    expect(DRAINED_PAUSE_MS).toBeGreaterThan(0);
    for (let i = 1; i < reads.length; i++) expect((reads[i] as number) - (reads[i - 1] as number)).toBeGreaterThanOrEqual(DRAINED_PAUSE_MS);
    // ...and, at this rate, not much more: about DRAINED_TARGET_RECORDS records' worth.
    expect(reads.length).toBeGreaterThanOrEqual(40 / (DRAINED_TARGET_RECORDS + 2));
  });

  it('with records on several partitions coming slowly, a drained partition waits for about DRAINED_TARGET_RECORDS of them, at most MAX_DRAINED_PAUSE_MS', async () => {
    // A record on every partition each 3 ms: at the shortest pause most reads would find one
    // record or none; by the partition's rate the next read waits for about two.
    const { reads, consumed } = await busyStretch(4, 3, 120);
    expect(consumed).toBe(160);
    expect(MAX_DRAINED_PAUSE_MS).toBeGreaterThan(DRAINED_PAUSE_MS);
    const gaps = reads.slice(1).map((t, i) => t - (reads[i] as number));
    expect(gaps.length).toBeGreaterThan(4);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThan(DRAINED_PAUSE_MS);
      expect(gap).toBeLessThanOrEqual(MAX_DRAINED_PAUSE_MS + 1);
    }
    // 60 ms of records at one per 3 ms: 20 records, in far fewer reads than records.
    expect(reads.length).toBeLessThanOrEqual(60 / 3 / 1.5);
  });

  it('a read that fills its batch is followed at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(1, 600);
    const counted = pollingLog(log);
    let consumed = 0;
    const consumer = loop(counted.transport, async () => {
      consumed++;
      return 'handled';
    });
    await consumer.start();
    const running = consumer.run();
    for (let i = 0; i < 1_000 && consumed < 600; i++) {
      await vi.advanceTimersByTimeAsync(0);
      await realImmediate();
    }
    // 600 records in reads of 256: three reads without any time passing.
    expect(consumed).toBe(600);
    expect(performance.now()).toBe(0);
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
