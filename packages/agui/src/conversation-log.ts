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
  return readConversationRange(transport, address, conversation, 0n, end, signal, onError);
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

/** One of the conversation's records, with the index of the address (of those followed) it came from. */
export interface FollowedRecord {
  /** Index into the followed addresses. */
  readonly at: number;
  /** The record. */
  readonly record: ConversationRecord;
}

/**
 * Follows the conversation on every address from offset 0 forever, waiting with the transport's
 * `waitFor` on all of them at once (no busy polling). Each round reads every address once and
 * yields the round's records in broker-time order (an address's own order is kept), so a
 * conversation spread over a layout's topics or partitions arrives as one stream. Yields `idle`
 * after a wait that timed out or a round holding none of the conversation's records, so a caller
 * can send keepalives. Ends by throwing the transport's `CancelledError` when `signal` fires.
 * Undecodable records are skipped and reported to `onError` with their position.
 */
export async function* followConversation(
  transport: LogTransport,
  addresses: readonly ConversationAddress[],
  conversation: ConversationId,
  idleMs: number,
  signal: AbortSignal,
  onError?: SkippedRecordHandler,
): AsyncGenerator<FollowedRecord | 'idle', void, undefined> {
  const next = addresses.map(() => 0n);
  for (;;) {
    let read = false;
    const round: FollowedRecord[] = [];
    for (const [at, address] of addresses.entries()) {
      const batch = await transport.read({ ...address, offset: next[at] as bigint, maxCount: READ_BATCH, signal });
      const lastRecord = batch[batch.length - 1];
      if (lastRecord === undefined) continue;
      read = true;
      next[at] = lastRecord.offset + 1n;
      for (const record of conversationRecords(address, conversation, batch, onError)) round.push({ at, record });
    }
    if (read) {
      // A round of other conversations' records still hands control back (for keepalives).
      if (round.length === 0) yield 'idle';
      if (addresses.length > 1) round.sort((a, b) => (a.record.timestampMicros === b.record.timestampMicros ? 0 : a.record.timestampMicros < b.record.timestampMicros ? -1 : 1));
      yield* round;
      continue;
    }
    if (!(await anyArrival(transport, addresses, next, idleMs, signal))) yield 'idle';
  }
}

/** Waits until any address has a record at its next offset; `false` after `idleMs`. The waits left over are cancelled. */
async function anyArrival(
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
