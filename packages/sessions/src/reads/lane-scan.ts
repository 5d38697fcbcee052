import { readAgentMessage, type AgentMessage } from '@agdx/agents';
import type { LogRecord, LogTransport } from '@agdx/transport';
import { ConversationId, readConversationHeader, reportSkippedRecord, type SkippedRecordHandler } from '@agdx/wire';
import { topicTails } from '../checkpoint/checkpoint.js';

const READ_BATCH = 1000;

/** One record of a scanned topic: decoded, or undecodable with the conversation its header names. */
export interface ScannedRecord {
  readonly topic: string;
  readonly topicIndex: number;
  readonly record: LogRecord;
  readonly message: AgentMessage | undefined;
  /** The conversation: from the decoded message, else from a readable header. */
  readonly conversation: ConversationId | undefined;
}

/** What a scan covered on each partition. */
export interface PartitionFrontier {
  readonly topic: string;
  readonly partition: number;
  /** First offset the log still held (the retained start), or the tail when empty. */
  readonly retainedFrom: bigint;
  /** The next offset after the scan (the fold frontier). */
  readonly folded: bigint;
  /** The tail when the scan began. */
  readonly head: bigint;
}

/** A whole-topic scan of the stream's lane topics. */
export interface LaneScan {
  readonly records: ScannedRecord[];
  readonly frontiers: PartitionFrontier[];
  /** Topics that exist. */
  readonly present: ReadonlySet<string>;
}

function headerConversation(record: LogRecord): ConversationId | undefined {
  const header = record.headers.get('gen_ai.conversation.id');
  if (header === undefined) return undefined;
  try {
    return readConversationHeader(header, 'gen_ai.conversation.id');
  } catch {
    return undefined;
  }
}

/**
 * Reads every retained record of `topics` (whole range up to the tails seen at the start), decodes
 * each one, and orders them by broker time, then topic order, partition and offset. An undecodable
 * record is kept (without a message) and reported to `onError` with its position.
 */
export async function scanTopics(
  transport: LogTransport,
  stream: string,
  topics: readonly string[],
  signal?: AbortSignal,
  onError?: SkippedRecordHandler,
): Promise<LaneScan> {
  const records: ScannedRecord[] = [];
  const frontiers: PartitionFrontier[] = [];
  const present = new Set<string>();
  for (let topicIndex = 0; topicIndex < topics.length; topicIndex++) {
    const topic = topics[topicIndex] as string;
    const tails = await topicTails(transport, stream, topic, signal);
    if (tails === undefined) continue;
    present.add(topic);
    for (const [partition, head] of tails) {
      let offset = 0n;
      let retainedFrom: bigint | undefined;
      while (offset < head) {
        const batch = await transport.read({ stream, topic, partition, offset, maxCount: READ_BATCH, signal });
        if (batch.length === 0) break;
        for (const record of batch) {
          if (record.offset >= head) break;
          retainedFrom ??= record.offset;
          let message: AgentMessage | undefined;
          try {
            message = readAgentMessage(record, { stream, topic });
          } catch (error) {
            message = undefined;
            reportSkippedRecord(onError, { stream, topic, partition, offset: record.offset }, error);
          }
          records.push({ topic, topicIndex, record, message, conversation: message?.provenance.conversation ?? headerConversation(record) });
        }
        offset = (batch[batch.length - 1] as LogRecord).offset + 1n;
      }
      frontiers.push({ topic, partition, retainedFrom: retainedFrom ?? head, folded: head, head });
    }
  }
  records.sort((a, b) => {
    const at = a.record.timestampMicros;
    const bt = b.record.timestampMicros;
    if (at !== bt) return at < bt ? -1 : 1;
    if (a.topicIndex !== b.topicIndex) return a.topicIndex - b.topicIndex;
    if (a.record.partition !== b.record.partition) return a.record.partition - b.record.partition;
    return a.record.offset === b.record.offset ? 0 : a.record.offset < b.record.offset ? -1 : 1;
  });
  return { records, frontiers, present };
}
