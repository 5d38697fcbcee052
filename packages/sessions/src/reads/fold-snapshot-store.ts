import type { LogTransport, TopicDescription } from '@agdx/transport';
import { AgdxError } from '@agdx/wire';
import { FoldSnapshotRejectedError } from '../errors.js';
import { decodeFoldImage, foldConversation, type FoldImage } from './fold-image.js';

/** The topic session fold snapshots are written to, on the session stream (one partition). */
export const SNAPSHOT_TOPIC = 'agent.snapshots';
/** The header naming what a snapshot record folds (`sessions` for a session fold). */
export const FOLD_HEADER = 'agdx.fold';
/** The header naming the stream a snapshot record folds. */
export const FOLD_STREAM_HEADER = 'agdx.fold.stream';
/** How many of the newest snapshot records a reader looks through for its stream's snapshot. */
const SNAPSHOT_LOOKBACK = 16n;

const utf8 = new TextEncoder();
// ignoreBOM: a stream named with a leading U+FEFF is another stream, not this one.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** What a snapshot write produced. */
export interface FoldSnapshotWritten {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly bytes: number;
  readonly sessions: number;
}

/** A snapshot record a reader found. */
export interface FoundSnapshot {
  readonly partition: number;
  readonly offset: bigint;
  readonly payload: Uint8Array;
}

/** The description of `topic`, or undefined when it does not exist. */
export async function describeTopic(transport: LogTransport, stream: string, topic: string, signal?: AbortSignal): Promise<TopicDescription | undefined> {
  try {
    return await transport.describeTopic({ stream, topic }, { signal });
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) return undefined;
    throw error;
  }
}

function headerText(record: { readonly headers: ReadonlyMap<string, { readonly kind: string; readonly value: Uint8Array }> }, key: string): string | undefined {
  const h = record.headers.get(key);
  if (h === undefined || h.kind !== 'string') return undefined;
  return utf8Decoder.decode(h.value);
}

/** The newest session fold snapshot record of `stream` on {@link SNAPSHOT_TOPIC}, by broker time then offset. */
export async function findFoldSnapshot(transport: LogTransport, stream: string, signal?: AbortSignal): Promise<FoundSnapshot | undefined> {
  const topic = await describeTopic(transport, stream, SNAPSHOT_TOPIC, signal);
  if (topic === undefined) return undefined;
  let found: (FoundSnapshot & { ts: bigint }) | undefined;
  for (const p of topic.partitions) {
    // newest first, one record at a time: a snapshot may be megabytes, so read no more than needed
    const low = p.nextOffset > SNAPSHOT_LOOKBACK ? p.nextOffset - SNAPSHOT_LOOKBACK : 0n;
    for (let offset = p.nextOffset - 1n; offset >= low; offset--) {
      const [record] = await transport.read({ stream, topic: SNAPSHOT_TOPIC, partition: p.partition, offset, maxCount: 1, signal });
      if (record === undefined || record.offset !== offset) continue;
      if (headerText(record, FOLD_HEADER) !== 'sessions' || headerText(record, FOLD_STREAM_HEADER) !== stream) continue;
      const newer = found === undefined || record.timestampMicros > found.ts || (record.timestampMicros === found.ts && record.offset > found.offset);
      if (newer) found = { partition: p.partition, offset: record.offset, ts: record.timestampMicros, payload: record.payload };
      break;
    }
  }
  return found;
}

/** Appends a snapshot payload to {@link SNAPSHOT_TOPIC} (created with one partition when missing). */
export async function appendFoldSnapshot(transport: LogTransport, stream: string, payload: Uint8Array, signal?: AbortSignal): Promise<{ partition: number; offset: bigint }> {
  if ((await describeTopic(transport, stream, SNAPSHOT_TOPIC, signal)) === undefined) {
    await transport.ensureTopic({ stream, topic: SNAPSHOT_TOPIC }, { partitions: 1 }, { signal });
  }
  const headers = new Map([
    [FOLD_HEADER, { kind: 'string' as const, value: utf8.encode('sessions') }],
    [FOLD_STREAM_HEADER, { kind: 'string' as const, value: utf8.encode(stream) }],
  ]);
  const result = await transport.append({ stream, topic: SNAPSHOT_TOPIC, records: [{ headers, payload }], routing: { partition: 0 }, payloadsImmutable: true, signal });
  return { partition: result.partition, offset: result.baseOffset };
}

/**
 * Decodes a found snapshot and checks it against the log as it is now: this stream, this layout,
 * lane topics only, the same partitions and topic generations, and no resume offset beyond a
 * partition's tail.
 * @throws FoldSnapshotRejectedError naming the first check that failed.
 */
export async function checkFoldSnapshot(
  found: FoundSnapshot,
  expect: { readonly stream: string; readonly layout: string; readonly names: readonly string[]; readonly described: ReadonlyMap<string, TopicDescription> },
): Promise<FoldImage> {
  const { stream, layout, names, described } = expect;
  const context = { stream, topic: SNAPSHOT_TOPIC, partition: found.partition, offset: found.offset };
  let image: Awaited<ReturnType<typeof decodeFoldImage>>;
  try {
    image = await decodeFoldImage(found.payload);
  } catch (error) {
    throw new FoldSnapshotRejectedError('corrupt', 'the snapshot cannot be decoded within the wire limits', { cause: error, context });
  }
  if (image.stream !== stream || !image.conversation.equals(foldConversation(stream))) {
    throw new FoldSnapshotRejectedError('stream', `written for stream ${JSON.stringify(image.stream)}`, { context });
  }
  if (image.layout !== layout) throw new FoldSnapshotRejectedError('layout', `written under layout ${image.layout}, the client uses ${layout}`, { context });
  const seen = new Set<string>();
  for (const t of image.topics) {
    const d = described.get(t.topic);
    const name = JSON.stringify(t.topic);
    if (!names.includes(t.topic) || d === undefined || seen.has(t.topic)) throw new FoldSnapshotRejectedError('topics', `topic ${name} is not a lane topic of this log`, { context });
    seen.add(t.topic);
    if (d.partitions.length !== t.partitions.length || t.partitions.some((p, i) => d.partitions[i]?.partition !== p.partition)) {
      throw new FoldSnapshotRejectedError('topics', `topic ${name} has ${d.partitions.length} partitions, the snapshot folded ${t.partitions.length}`, { context });
    }
    if (d.createdAtMicros !== t.createdAtMicros) throw new FoldSnapshotRejectedError('generation', `topic ${name} was recreated since the snapshot`, { context });
    for (const [i, p] of t.partitions.entries()) {
      const head = d.partitions[i]?.nextOffset ?? 0n;
      if (p.next > head) throw new FoldSnapshotRejectedError('beyond-end', `topic ${name} partition ${p.partition} resumes at ${p.next}, beyond its end ${head}`, { context });
    }
  }
  return image;
}
