/**
 * Reading one conversation from a topic: its records live on the partition its Crockford key
 * routes to (every stream layout keys conversation records that way on a shared topic).
 */

import { readAgentMessage } from '@agdx/agents';
import { partitionForKey, type LogRecord, type LogTransport } from '@agdx/transport';
import { CodecError, reportSkippedRecord, type AgentEnvelope, type ConversationId, type SkippedRecordHandler } from '@agdx/wire';

/** Where a conversation lives. */
export interface ConversationAddress {
  /** Stream name. */
  readonly stream: string;
  /** Topic name. */
  readonly topic: string;
  /** The partition the conversation's key routes to. */
  readonly partition: number;
}

/** One record of the conversation, with its offset. */
export interface ConversationRecord {
  /** Offset in the conversation's partition. */
  readonly offset: bigint;
  /** The decoded envelope. */
  readonly envelope: AgentEnvelope;
}

/**
 * Reports state records whose body cannot be read (for `AguiConverter`'s `onUnreadableState`):
 * set `offset` to the record being converted before each `convert` call.
 */
export function unreadableStateReporter(
  address: ConversationAddress,
  onError: SkippedRecordHandler | undefined,
): { offset: bigint; readonly report: (envelope: AgentEnvelope) => void } {
  const reporter = {
    offset: 0n,
    report: (envelope: AgentEnvelope): void => {
      const cause = new CodecError(`the body of a \`${envelope.operation ?? ''}\` state record is neither a state capsule nor JSON`, {
        context: { operation: envelope.operation },
      });
      reportSkippedRecord(onError, { stream: address.stream, topic: address.topic, partition: address.partition, offset: reporter.offset }, cause);
    },
  };
  return reporter;
}

/** Records fetched per read. */
const READ_BATCH = 1_000;

/** The partition of `conversation` on `topic` (the topic must exist). */
export async function locateConversation(
  transport: LogTransport,
  stream: string,
  topic: string,
  conversation: ConversationId,
  signal?: AbortSignal,
): Promise<ConversationAddress> {
  const description = await transport.describeTopic({ stream, topic }, { signal });
  const partition = await partitionForKey(conversation.toString(), description.partitionCount);
  return { stream, topic, partition };
}

/**
 * The conversation's envelope records in a batch of raw records; records of other
 * conversations and plain records are passed over. An undecodable record is skipped and
 * reported to `onError` with its position (a reader here has no dead-letter duty: the consuming
 * agents dead-letter them); it never ends or stalls the read.
 */
export function conversationRecords(
  address: ConversationAddress,
  conversation: ConversationId,
  records: readonly LogRecord[],
  onError?: SkippedRecordHandler,
): ConversationRecord[] {
  const out: ConversationRecord[] = [];
  for (const record of records) {
    let envelope: AgentEnvelope | undefined;
    try {
      envelope = readAgentMessage(record, address).envelope;
    } catch (error) {
      reportSkippedRecord(onError, { stream: address.stream, topic: address.topic, partition: record.partition, offset: record.offset }, error);
      continue;
    }
    if (envelope !== undefined && envelope.conversation.equals(conversation)) out.push({ offset: record.offset, envelope });
  }
  return out;
}

/** Every record of the conversation from its start up to the partition's end when called; skipped records go to `onError`. */
export async function readConversationToEnd(
  transport: LogTransport,
  address: ConversationAddress,
  conversation: ConversationId,
  signal?: AbortSignal,
  onError?: SkippedRecordHandler,
): Promise<ConversationRecord[]> {
  const description = await transport.describeTopic({ stream: address.stream, topic: address.topic }, { signal });
  const end = description.partitions[address.partition]?.nextOffset ?? 0n;
  const out: ConversationRecord[] = [];
  let next = 0n;
  while (next < end) {
    const batch = await transport.read({ ...address, offset: next, maxCount: READ_BATCH, signal });
    if (batch.length === 0) break;
    for (const item of conversationRecords(address, conversation, batch, onError)) if (item.offset < end) out.push(item);
    const lastRecord = batch[batch.length - 1];
    if (lastRecord === undefined) break;
    next = lastRecord.offset + 1n;
  }
  return out;
}

/**
 * Follows the conversation from offset 0 forever, waiting with the transport's `waitFor` (no
 * busy polling). Yields `idle` after a wait that timed out or a batch holding none of the
 * conversation's records, so a caller can send keepalives.
 * Ends by throwing the transport's `CancelledError` when `signal` fires. Undecodable records are
 * skipped and reported to `onError` with their position.
 */
export async function* followConversation(
  transport: LogTransport,
  address: ConversationAddress,
  conversation: ConversationId,
  idleMs: number,
  signal: AbortSignal,
  onError?: SkippedRecordHandler,
): AsyncGenerator<ConversationRecord | 'idle', void, undefined> {
  let next = 0n;
  for (;;) {
    const batch = await transport.read({ ...address, offset: next, maxCount: READ_BATCH, signal });
    const lastRecord = batch[batch.length - 1];
    if (lastRecord !== undefined) {
      next = lastRecord.offset + 1n;
      const mine = conversationRecords(address, conversation, batch, onError);
      // A batch of other conversations' records still hands control back (for keepalives).
      if (mine.length === 0) yield 'idle';
      yield* mine;
      continue;
    }
    const arrived = await transport.waitFor({ ...address, offset: next, timeoutMs: idleMs, signal });
    if (!arrived) yield 'idle';
  }
}
