/**
 * Reading one conversation from a topic. Where its records live is the stream layout's answer
 * (`locatePartitions` of `@agdx/agents`): in the shared and single-partition layouts, the
 * partition its Crockford key routes to; with a topic or a partition per agent, records
 * addressed to a declared agent (commands, replies, chunks) live on that agent's topic or
 * partition instead, so a full read covers every place the layout names.
 */

import { locatePartitions, readAgentMessage, type StreamLayout } from '@agdx/agents';
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
  /** Broker timestamp (microseconds): orders records read from several partitions. */
  readonly timestampMicros: bigint;
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

/**
 * Every partition the layout may have put records of `conversation` sent to `topic` on, the
 * conversation's own partition first (the topics must exist).
 */
export async function locateConversationEverywhere(
  transport: LogTransport,
  layout: StreamLayout,
  stream: string,
  topic: string,
  conversation: ConversationId,
  signal?: AbortSignal,
): Promise<ConversationAddress[]> {
  return locatePartitions(transport, stream, layout, { topic, conversation: conversation.toString() }, signal);
}

/**
 * The conversation's records on every address, up to each partition's end when called, merged in
 * broker-time order (a partition's own order is kept; ties keep address order).
 */
export async function readConversationEverywhere(
  transport: LogTransport,
  addresses: readonly ConversationAddress[],
  conversation: ConversationId,
  signal?: AbortSignal,
  onError?: SkippedRecordHandler,
): Promise<{ readonly address: ConversationAddress; readonly record: ConversationRecord }[]> {
  const merged: { readonly address: ConversationAddress; readonly record: ConversationRecord }[] = [];
  for (const address of addresses) {
    for (const record of await readConversationToEnd(transport, address, conversation, signal, onError)) merged.push({ address, record });
  }
  if (addresses.length < 2) return merged;
  // a stable sort: equal timestamps keep partition order, and a partition is already in order
  return merged
    .map((item, index) => ({ item, index }))
    .sort((a, b) => (a.item.record.timestampMicros === b.item.record.timestampMicros ? a.index - b.index : a.item.record.timestampMicros < b.item.record.timestampMicros ? -1 : 1))
    .map(({ item }) => item);
}

/** The conversation's own partition on `topic`, where its key routes (the topic must exist). */
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
    if (envelope !== undefined && envelope.conversation.equals(conversation)) out.push({ offset: record.offset, timestampMicros: record.timestampMicros, envelope });
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
