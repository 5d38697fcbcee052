/**
 * The consumer loop on a log whose waits poll (Iggy), where every read and commit is a request
 * on a connection that carries one at a time: commits that cover only skipped records linger
 * longer than commits of work, and while records flow a partition that just read empty is not
 * read again in every round. Held on a MemoryLog that declares `waitsByPolling`, with faked
 * timers so the pauses are exact.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryLog, type GroupMember, type JoinGroupRequest, type LogTransport, type ReadRequest } from '@agdx/transport';
import { ConsumerLoop, EMPTY_PARTITION_PAUSE_MS, LAZY_COMMIT_MS } from '../src/agent/consumer-loop.js';
import { overriding } from './support-runtime/overriding.js';

const STREAM = 's';
const TOPIC = 't';
const payload = new Uint8Array([1]);

interface Counted {
  readonly transport: LogTransport;
  readonly commits: { partition: number; offset: bigint }[];
  readonly reads: Map<number, number>;
}

/** A MemoryLog connection that says its waits poll, counting group commits and reads per partition. */
function pollingLog(log: MemoryLog): Counted {
  const commits: { partition: number; offset: bigint }[] = [];
  const reads = new Map<number, number>();
  const joinGroup = async (request: JoinGroupRequest): Promise<GroupMember> => {
    const member = await log.joinGroup(request);
    return overriding(member, {
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
  return { transport: overriding(log, { waitsByPolling: true, joinGroup, read }), commits, reads };
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

function loop(transport: LogTransport, consume: ConstructorParameters<typeof ConsumerLoop>[0]['consume']): ConsumerLoop {
  return new ConsumerLoop({
    transport,
    stream: STREAM,
    topic: TOPIC,
    group: 'g',
    parallelism: 8,
    maxQueuedRecords: 64,
    idleWaitMs: 100,
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

  it('commits records it skipped after LAZY_COMMIT_MS, work after at most 20 ms, and work brings a lazy commit forward', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = await topicWith(1, 3);
    const counted = pollingLog(log);
    const outcomes = ['skipped', 'skipped', 'skipped', 'handled'];
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

    await log.append({ stream: STREAM, topic: TOPIC, routing: { partition: 0 }, records: [{ payload }] });
    await pass(150);
    expect(consumed).toBe(4);
    // The handled record is committed within the work linger, well before LAZY_COMMIT_MS.
    expect(counted.commits).toEqual([
      { partition: 0, offset: 2n },
      { partition: 0, offset: 3n },
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
});
