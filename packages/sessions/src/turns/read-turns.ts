import { readAgentMessage, type StreamLayout } from '@agdx/agents';
import type { LogRecord, LogTransport } from '@agdx/transport';
import { reportSkippedRecord, type ConversationId, type SkippedRecordHandler } from '@agdx/wire';
import type { Checkpoint } from '../checkpoint/checkpoint.js';
import { describeIfExists } from '../checkpoint/checkpoint.js';
import { ownedRecords } from './owned-record.js';
import type { ContextMessage } from './session-turn.js';
import { turnPartitions } from './turn-partitions.js';

/** Raw records examined per partition by context and turn reads (seed 004 "Read limits"). */
export const CONTEXT_READ_WINDOW = 10_000;

/** Records asked for per read call. */
const READ_BATCH = 1000;

const CONVERSATION_HEADER = 'gen_ai.conversation.id';
const encoder = new TextEncoder();

/**
 * Which slice of each partition a read covers: `[start, end)`, or undefined to skip the partition.
 * `tail` is the partition's next offset when the read began.
 */
export type PartitionBounds = (topic: string, partition: number, tail: bigint) => { readonly start: bigint; readonly end: bigint } | undefined;

/** Open windowed read: the newest {@link CONTEXT_READ_WINDOW} records of every partition. */
export const windowedBounds: PartitionBounds = (_topic, _partition, tail) => ({
  start: tail > BigInt(CONTEXT_READ_WINDOW) ? tail - BigInt(CONTEXT_READ_WINDOW) : 0n,
  end: tail,
});

/** `turnsAt`/`stateAt`: from offset 0 up to (excluding) the checkpoint; partitions it does not name read nothing. */
export function atCheckpointBounds(checkpoint: Checkpoint): PartitionBounds {
  const cache = new Map<string, Map<number, bigint> | undefined>();
  return (topic, partition) => {
    if (!cache.has(topic)) cache.set(topic, checkpoint.topicOffsets(topic));
    const end = cache.get(topic)?.get(partition);
    return end === undefined || end === 0n ? undefined : { start: 0n, end };
  };
}

/** `turnsSince`/`replay`: from the checkpoint's offset (0 when not named) to the tail seen at the start. */
export function sinceCheckpointBounds(checkpoint: Checkpoint): PartitionBounds {
  const cache = new Map<string, Map<number, bigint> | undefined>();
  return (topic, partition, tail) => {
    if (!cache.has(topic)) cache.set(topic, checkpoint.topicOffsets(topic));
    const start = cache.get(topic)?.get(partition) ?? 0n;
    return start >= tail ? undefined : { start, end: tail };
  };
}

/** A turn found by a read, with the keys it is merged by. @internal */
export interface Keyed {
  readonly message: ContextMessage;
  readonly topicIndex: number;
  /** Broker time as a number: exact below 2^53 µs (the year 2255), compared far faster than a bigint. */
  readonly ts: number;
  /** Offset as a number, exact below 2^53. */
  readonly offset: number;
  /** The turn's identity (its envelope's record id), found once when it is read; undefined for a plain turn. */
  readonly identity: string | undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What the conversation header says before decoding: another conversation, this one, or nothing sure. */
type Belongs = 'no' | 'yes' | 'maybe';

/** A cheap pre-filter: `no` only when the conversation header plainly names another conversation. */
function mayBelong(record: LogRecord, textBytes: Uint8Array, bigEndian: Uint8Array): Belongs {
  const header = record.headers.get(CONVERSATION_HEADER);
  if (header === undefined) return 'maybe';
  if (header.kind === 'string') return sameBytes(header.value, textBytes) ? 'yes' : 'no';
  if (header.kind === 'uint128' && header.value.length === 16) {
    for (let i = 0; i < 16; i++) if (header.value[i] !== bigEndian[15 - i]) return 'no';
    return 'yes';
  }
  return 'maybe';
}

/** One partition slice to read for one conversation. @internal */
export interface PartitionRead {
  readonly transport: LogTransport;
  readonly stream: string;
  readonly topic: string;
  readonly topicIndex: number;
  readonly partition: number;
  readonly range: { readonly start: bigint; readonly end: bigint };
  readonly conversation: ConversationId;
  readonly textBytes: Uint8Array;
  readonly bigEndian: Uint8Array;
  readonly signal: AbortSignal | undefined;
  readonly onError: SkippedRecordHandler | undefined;
}

/** One page of a partition slice: the conversation's turns in it, and where the next page starts. @internal */
export interface TurnPage {
  readonly found: Keyed[];
  /** The offset the next page starts at; at or past the slice's end when nothing is left. */
  readonly next: bigint;
}

/**
 * Reads one page (at most one read batch) of a partition slice from `offset` and keeps the
 * conversation's turns, in offset order. Only the page's own records are held while it is read.
 * @internal
 */
export async function readPage(r: PartitionRead, offset: bigint): Promise<TurnPage> {
  const { transport, stream, topic, topicIndex, partition, range, conversation, textBytes, bigEndian, signal, onError } = r;
  const address = { stream, topic };
  const found: Keyed[] = [];
  const want = range.end - offset;
  const records = await transport.read({
    stream,
    topic,
    partition,
    offset,
    maxCount: want < BigInt(READ_BATCH) ? Number(want) : READ_BATCH,
    signal,
  });
  // nothing at or after `offset`: the rest of the slice is gone (expiry) or was never written
  if (records.length === 0) return { found, next: range.end };
  // offsets are contiguous unless records expired, so only a batch that reaches `end` needs the per-record check
  const clipped = (records[records.length - 1] as LogRecord).offset >= range.end;
  // A kept turn must not pin the read reply its record is a view into, so this conversation's
  // records of the batch are copied out of it (into one buffer of their own) and decoded there.
  const mine: LogRecord[] = [];
  for (const record of records) {
    if (clipped && record.offset >= range.end) break;
    const belongs = mayBelong(record, textBytes, bigEndian);
    if (belongs === 'no') continue;
    if (belongs === 'maybe') {
      // no header to tell: decode to learn the conversation (a record that fails is reported below)
      let message;
      try {
        message = readAgentMessage(record, address);
      } catch {
        mine.push(record);
        continue;
      }
      if (!message.provenance.conversation.equals(conversation)) continue;
    }
    mine.push(record);
  }
  for (const record of mine.length === 0 ? mine : ownedRecords(mine)) {
    let message;
    try {
      message = readAgentMessage(record, address);
    } catch (error) {
      reportSkippedRecord(onError, { stream, topic, partition, offset: record.offset }, error);
      continue;
    }
    if (!message.provenance.conversation.equals(conversation)) continue;
    // an explicit literal (not a spread) keeps one hidden class and is several times cheaper per record
    const turn: ContextMessage = {
      id: message.id,
      timestampMicros: message.timestampMicros,
      headers: message.headers,
      payload: message.payload,
      envelope: message.envelope,
      contentType: message.contentType,
      provenance: message.provenance,
      topic,
    };
    found.push({ message: turn, topicIndex, ts: Number(record.timestampMicros), offset: Number(record.offset), identity: message.envelope?.record?.toString() });
  }
  return { found, next: (records[records.length - 1] as LogRecord).offset + 1n };
}

/** Reads one partition slice and keeps the conversation's turns, in offset order. @internal */
export async function readPartition(r: PartitionRead): Promise<Keyed[]> {
  const found: Keyed[] = [];
  let offset = r.range.start;
  while (offset < r.range.end) {
    const page = await readPage(r, offset);
    for (const k of page.found) found.push(k);
    offset = page.next;
  }
  return found;
}

/** The two spellings of a conversation header the pre-filter compares against. @internal */
export function conversationKeys(conversation: ConversationId): { readonly textBytes: Uint8Array; readonly bigEndian: Uint8Array } {
  return { textBytes: encoder.encode(conversation.toString()), bigEndian: conversation.toBytes() };
}

/** The partition slices a read of `conversation` covers on `topics`, as `bounds` and the layout say. @internal */
export async function conversationSlices(
  transport: LogTransport,
  stream: string,
  topics: readonly string[],
  conversation: ConversationId,
  bounds: PartitionBounds,
  signal: AbortSignal | undefined,
  onError: SkippedRecordHandler | undefined,
  layout: StreamLayout | undefined,
): Promise<PartitionRead[]> {
  const { textBytes, bigEndian } = conversationKeys(conversation);
  // topics are described concurrently: over a network transport the round trips overlap
  const perTopic = await Promise.all(
    topics.map(async (topic, topicIndex) => {
      const description = await describeIfExists(transport, stream, topic, signal);
      if (description === undefined) return [];
      const slices: PartitionRead[] = [];
      for (const p of await turnPartitions(layout, description, conversation)) {
        const range = bounds(topic, p.partition, p.nextOffset);
        if (range !== undefined) slices.push({ transport, stream, topic, topicIndex, partition: p.partition, range, conversation, textBytes, bigEndian, signal, onError });
      }
      return slices;
    }),
  );
  return perTopic.flat();
}

/**
 * Reads the messages of `conversation` on `topics` of `stream` within `bounds`, merged and ordered
 * by broker timestamp, then the topic's index in `topics`, partition and offset (the producer's
 * clock is never used). Missing topics contribute nothing; undecodable records that may belong to
 * the conversation are skipped and reported to `onError` with their position. With `layout`, each
 * topic is read only on the partitions where that stream layout puts the conversation's records
 * (one per turn topic: see `turnPartitions`); without it, on every partition.
 */
export async function readConversation(
  transport: LogTransport,
  stream: string,
  topics: readonly string[],
  conversation: ConversationId,
  bounds: PartitionBounds,
  signal?: AbortSignal,
  onError?: SkippedRecordHandler,
  layout?: StreamLayout,
): Promise<ContextMessage[]> {
  return (await readConversationKeyed(transport, stream, topics, conversation, bounds, signal, onError, layout)).map((k) => k.message);
}

/** {@link readConversation} with the keys each turn is merged by, in read order. @internal */
export async function readConversationKeyed(
  transport: LogTransport,
  stream: string,
  topics: readonly string[],
  conversation: ConversationId,
  bounds: PartitionBounds,
  signal: AbortSignal | undefined,
  onError: SkippedRecordHandler | undefined,
  layout: StreamLayout | undefined,
): Promise<Keyed[]> {
  const slices = await conversationSlices(transport, stream, topics, conversation, bounds, signal, onError, layout);
  // partitions are read concurrently: over a network transport the round trips overlap
  const parts = await Promise.all(slices.map(readPartition));
  return sortKeyed(parts.flat());
}

/** Sorts turns into read order: broker time, topic index, partition, offset. @internal */
export function sortKeyed(found: Keyed[]): Keyed[] {
  if (!isSorted(found)) found.sort(compareKeyed);
  return found;
}

function isSorted(found: readonly Keyed[]): boolean {
  for (let i = 1; i < found.length; i++) if (compareKeyed(found[i - 1] as Keyed, found[i] as Keyed) > 0) return false;
  return true;
}

const EXACT = Number.MAX_SAFE_INTEGER;

/** The read order of two turns: broker time, topic index, partition, offset. @internal */
export function compareKeyed(a: Keyed, b: Keyed): number {
  if (a.ts !== b.ts) return a.ts < EXACT && b.ts < EXACT ? a.ts - b.ts : compareBig(a.message.timestampMicros, b.message.timestampMicros);
  if (a.topicIndex !== b.topicIndex) return a.topicIndex - b.topicIndex;
  if (a.message.id.partition !== b.message.id.partition) return a.message.id.partition - b.message.id.partition;
  if (a.offset < EXACT && b.offset < EXACT) return a.offset - b.offset;
  return compareBig(a.message.id.offset, b.message.id.offset);
}

function compareBig(a: bigint, b: bigint): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
