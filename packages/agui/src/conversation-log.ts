/**
 * Reading one conversation from a topic. Where its records live is the stream layout's answer
 * (`locatePartitions` of `@agdx/agents`): in the shared and single-partition layouts, the
 * partition its Crockford key routes to; with a topic or a partition per agent, records
 * addressed to a declared agent (commands, replies, chunks) live on that agent's topic or
 * partition instead, so a full read covers every place the layout names.
 */

import { locatePartitions, readAgentMessage, type StreamLayout } from '@agdx/agents';
import type { LogRecord, LogTransport } from '@agdx/transport';
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

/** The conversation's records at offsets `from` (inclusive) to `end` (exclusive); skipped records go to `onError`. */
export async function readConversationRange(
  transport: LogTransport,
  address: ConversationAddress,
  conversation: ConversationId,
  from: bigint,
  end: bigint,
  signal?: AbortSignal,
  onError?: SkippedRecordHandler,
): Promise<ConversationRecord[]> {
  const out: ConversationRecord[] = [];
  let next = from;
  while (next < end) {
    const batch = await transport.read({ ...address, offset: next, maxCount: READ_BATCH, signal });
    if (batch.length === 0) break;
    for (const item of conversationRecords(address, conversation, batch.filter((record) => record.offset < end), onError)) out.push(item);
    const lastRecord = batch[batch.length - 1];
    if (lastRecord === undefined) break;
    next = lastRecord.offset + 1n;
  }
  return out;
}

/** Waits until any address has a record at its next offset; `false` after `idleMs`. The waits left over are cancelled. */
export async function anyArrival(
  transport: LogTransport,
  addresses: readonly ConversationAddress[],
  next: readonly bigint[],
  idleMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  if (addresses.length === 1) return transport.waitFor({ ...(addresses[0] as ConversationAddress), offset: next[0] as bigint, timeoutMs: idleMs, signal });
  const done = new AbortController();
  const both = AbortSignal.any([signal, done.signal]);
  try {
    const waits = addresses.map((address, at) =>
      transport.waitFor({ ...address, offset: next[at] as bigint, timeoutMs: idleMs, signal: both }).then((arrived) => {
        if (!arrived) throw new Error('idle');
        return true;
      }),
    );
    return await Promise.any(waits).catch(() => {
      // every wait timed out, or the caller's signal fired (then the next read throws CancelledError)
      return false;
    });
  } finally {
    done.abort();
  }
}
