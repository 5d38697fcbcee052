import { readAgentMessage, type AgentMessage } from '@agdx/agents';
import type { LogRecord, LogTransport } from '@agdx/transport';
import { reportSkippedRecord, type SkippedRecordHandler } from '@agdx/wire';
import { headerConversation, type ScannedRecord } from './scanned-record.js';

const READ_BATCH = 1000;

/** One partition to read: from `next` up to (not including) `head`. */
export interface PartitionRange {
  readonly topic: string;
  readonly topicIndex: number;
  readonly partition: number;
  /** The next offset to read; advanced as records are visited. */
  next: bigint;
  /** Where the read stops (the tail seen when the read began). */
  readonly head: bigint;
  /** The first offset the read found, when it found any (a value above the start is an expiry gap). */
  firstSeen: bigint | undefined;
}

interface Cursor {
  readonly range: PartitionRange;
  buffer: readonly LogRecord[];
  index: number;
  done: boolean;
}

function before(a: LogRecord, ai: number, b: LogRecord, bi: number): boolean {
  if (a.timestampMicros !== b.timestampMicros) return a.timestampMicros < b.timestampMicros;
  if (ai !== bi) return ai < bi;
  if (a.partition !== b.partition) return a.partition < b.partition;
  return a.offset < b.offset;
}

/**
 * Reads every `range` from its `next` to its `head` and visits the records merged in broker-time
 * order (then topic order, partition, offset), decoding each one. Only one batch per partition is
 * held at a time, so a read of a million records keeps a few thousand in memory. Each range's
 * `next` moves past a record only after `visit` returns, so an aborted read leaves every range at
 * a record boundary and the next read continues there. A partition that returns nothing below its
 * head has lost the rest to expiry: its `next` moves to the head. An undecodable record is visited
 * without a message and reported to `onError`.
 */
export async function readMerged(
  transport: LogTransport,
  stream: string,
  ranges: readonly PartitionRange[],
  visit: (scanned: ScannedRecord) => void,
  signal?: AbortSignal,
  onError?: SkippedRecordHandler,
): Promise<void> {
  const cursors: Cursor[] = ranges.map((range) => ({ range, buffer: [], index: 0, done: range.next >= range.head }));
  const topicsByIndex = new Map(ranges.map((r) => [r.topicIndex, r.topic]));
  const refill = async (c: Cursor): Promise<void> => {
    const { range } = c;
    if (range.next >= range.head) {
      c.done = true;
      return;
    }
    const batch = await transport.read({ stream, topic: range.topic, partition: range.partition, offset: range.next, maxCount: READ_BATCH, signal });
    const kept = batch.filter((r) => r.offset >= range.next && r.offset < range.head);
    if (kept.length === 0) {
      // Nothing at or after `next` below the head: the rest expired before this read reached it.
      if (batch.length === 0) range.next = range.head;
      c.done = true;
      return;
    }
    range.firstSeen ??= (kept[0] as LogRecord).offset;
    c.buffer = kept;
    c.index = 0;
  };
  for (const c of cursors) if (!c.done) await refill(c);
  for (;;) {
    signal?.throwIfAborted();
    let best: Cursor | undefined;
    for (const c of cursors) {
      if (c.done) continue;
      const candidate = c.buffer[c.index] as LogRecord;
      if (best === undefined || before(candidate, c.range.topicIndex, best.buffer[best.index] as LogRecord, best.range.topicIndex)) best = c;
    }
    if (best === undefined) return;
    const record = best.buffer[best.index] as LogRecord;
    const topic = topicsByIndex.get(best.range.topicIndex) as string;
    let message: AgentMessage | undefined;
    try {
      message = readAgentMessage(record, { stream, topic });
    } catch (error) {
      message = undefined;
      reportSkippedRecord(onError, { stream, topic, partition: record.partition, offset: record.offset }, error);
    }
    visit({ topic, topicIndex: best.range.topicIndex, record, message, conversation: message?.provenance.conversation ?? headerConversation(record) });
    best.range.next = record.offset + 1n;
    best.index++;
    if (best.index >= best.buffer.length) await refill(best);
  }
}
