/**
 * AG-UI fold snapshots: one conversation's kept replay (per-place resume offsets, the converter
 * and each record's events and turn facts) saved as the seeds' fold-snapshot capsule on
 * `agui.snapshots`, so a new process continues the replay instead of reading from offset 0. Not on
 * the sessions' `agui.snapshots`: session readers look through only its newest 16 records, and
 * per-conversation snapshots would push the session snapshot out of that window.
 * A snapshot is only ever used after every check below; otherwise the reader reports why and
 * reads the log from the start.
 */

import { EventSchema } from '@ag-ui/core/schemas';
import type { PlaceState } from '@agdx/agents';
import { FOLD_HEADER, FOLD_STREAM_HEADER, FoldSnapshotRejectedError, MAX_FOLD_SNAPSHOT_BYTES, type FoldSnapshotRejection } from '@agdx/sessions';
import type { LogTransport, TopicDescription } from '@agdx/transport';
import { AgdxError, CodecError, FieldReader, decodeFoldSnapshot, encodeCbor, encodeFoldSnapshot, type CborValue, type ConversationId } from '@agdx/wire';
import { z } from 'zod';
import type { ConversationAddress } from './conversation-log.js';
import type { ConverterImage } from './converter.js';
import type { AguiEvent } from './events.js';
import type { TurnFacts } from './turn.js';

/** The topic AG-UI fold snapshots are written to, on the conversation's stream (one partition). */
export const AGUI_SNAPSHOT_TOPIC = 'agui.snapshots';
/** The `agdx.fold` header value of an AG-UI snapshot record. */
export const AGUI_FOLD = 'agui';
/** The header naming the topic the snapshot's conversation was read on. */
export const FOLD_TOPIC_HEADER = 'agdx.fold.topic';
/** The header naming the conversation a snapshot folds (its Crockford id). */
export const FOLD_CONVERSATION_HEADER = 'agdx.fold.conversation';
/** How many of the newest records of each `agui.snapshots` partition a reader looks through. */
export const AGUI_SNAPSHOT_LOOKBACK = 64;
/** Version of the replay image inside the capsule's `state` bytes. */
const IMAGE_VERSION = 1n;
const SURFACE = 'agui fold snapshot';
const U32_MAX = 0xffff_ffffn;
const U64_MAX = 0xffff_ffff_ffff_ffffn;
/** Most CBOR items of the state map: a few per place, at most 256 places. */
const MAX_STATE_ITEMS = 4_096;

const utf8 = new TextEncoder();
// ignoreBOM: a header naming `\ufeffdemo` names another stream than `demo`.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Where a replay stands on one place, as saved. */
export interface SavedCursor {
  readonly address: ConversationAddress;
  readonly generation: bigint | undefined;
  readonly next: bigint;
}

/** One kept replay record (saved with its events and turn facts as JSON). */
export interface SavedEntry {
  /** Index of the place it came from. */
  readonly at: number;
  /** Its offset there. */
  readonly offset: bigint;
  /** Its AG-UI events. */
  readonly events: readonly AguiEvent[];
  /** What it means for turns (a POST run frames by them). */
  readonly turn: TurnFacts;
}

/** Everything a replay needs to continue. */
export interface ReplayImage {
  readonly cursors: readonly SavedCursor[];
  readonly converter: ConverterImage;
  readonly entries: readonly SavedEntry[];
}

/** What identifies the replay a snapshot is for. */
export interface SnapshotIdentity {
  readonly stream: string;
  readonly topic: string;
  readonly conversation: ConversationId;
  /** `layoutFingerprint` of the client's stream layout. */
  readonly layout: string;
}

/** A snapshot record found on `agui.snapshots`. */
export interface FoundAguiSnapshot {
  readonly partition: number;
  readonly offset: bigint;
  readonly payload: Uint8Array;
}

const turnEndSchema = z.union([z.object({ kind: z.literal('finished') }), z.object({ kind: z.literal('error'), message: z.string() })]);
const turnSchema = z.object({ opens: z.string().optional(), correlation: z.string().optional(), ends: turnEndSchema.optional() });
const decimal = z.string().regex(/^\d{1,20}$/);
const imageSchema = z.object({
  entries: z.array(z.tuple([z.number().int().nonnegative(), decimal, z.array(z.unknown()), turnSchema])),
  converter: z.object({
    channels: z.array(
      z.object({
        id: z.string(),
        purpose: z.enum(['chat', 'reasoning', 'tool_args']),
        open: z.boolean(),
        pending: z.array(z.number().int().min(0x80).max(0xff)).max(3),
      }),
    ),
    toolCalls: z.array(z.tuple([z.string(), z.string()])),
    endedTasks: z.array(z.string()),
    state: z.object({ document: z.json().optional(), revision: decimal, appliedOpIds: z.array(z.string()) }),
  }),
});

function reject(reason: FoldSnapshotRejection, message: string, context: Record<string, unknown>, cause?: unknown): FoldSnapshotRejectedError {
  return new FoldSnapshotRejectedError(reason, message, { context, ...(cause !== undefined ? { cause } : {}) });
}

/**
 * Encodes a replay as a fold-snapshot capsule: `conversation`, `as_of` (the last folded offset of
 * each partition of the conversation's own topic) and `state`, a CBOR map naming the stream,
 * topic, layout and places (with their generations and resume offsets) and the replay as JSON.
 * @throws CodecError when the capsule would exceed {@link MAX_FOLD_SNAPSHOT_BYTES}.
 */
export function encodeAguiSnapshot(identity: SnapshotIdentity, image: ReplayImage): Uint8Array {
  const json = JSON.stringify({
    entries: image.entries.map((e) => [e.at, e.offset.toString(), e.events, e.turn]),
    converter: image.converter,
  });
  const places: CborValue[] = image.cursors.map((c) => [c.address.topic, BigInt(c.address.partition), c.generation ?? null, c.next]);
  const state = encodeCbor(
    new Map<CborValue, CborValue>([
      ['version', IMAGE_VERSION],
      ['stream', identity.stream],
      ['topic', identity.topic],
      ['layout', identity.layout],
      ['places', places],
      ['replay', json],
    ]),
  );
  const asOf = new Map<number, bigint>();
  for (const c of image.cursors) if (c.address.topic === identity.topic && c.next > 0n && !asOf.has(c.address.partition)) asOf.set(c.address.partition, c.next - 1n);
  const bytes = encodeFoldSnapshot({ conversation: identity.conversation, asOf, state });
  if (bytes.length > MAX_FOLD_SNAPSHOT_BYTES) {
    throw new CodecError(`an AG-UI fold snapshot of ${bytes.length} bytes exceeds ${MAX_FOLD_SNAPSHOT_BYTES}`, { context: { surface: SURFACE, cap: MAX_FOLD_SNAPSHOT_BYTES } });
  }
  return bytes;
}

function headerText(record: { readonly headers: ReadonlyMap<string, { readonly kind: string; readonly value: Uint8Array }> }, key: string): string | undefined {
  const h = record.headers.get(key);
  return h === undefined || h.kind !== 'string' ? undefined : utf8Decoder.decode(h.value);
}

async function describeSnapshots(transport: LogTransport, stream: string, signal?: AbortSignal): Promise<TopicDescription | undefined> {
  try {
    return await transport.describeTopic({ stream, topic: AGUI_SNAPSHOT_TOPIC }, { signal });
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) return undefined;
    throw error;
  }
}

/** The newest AG-UI snapshot record of the conversation among the newest {@link AGUI_SNAPSHOT_LOOKBACK} of each partition. */
export async function findAguiSnapshot(transport: LogTransport, identity: SnapshotIdentity, signal?: AbortSignal): Promise<FoundAguiSnapshot | undefined> {
  const { stream, topic, conversation } = identity;
  const description = await describeSnapshots(transport, stream, signal);
  if (description === undefined) return undefined;
  const id = conversation.toString();
  let found: (FoundAguiSnapshot & { readonly ts: bigint }) | undefined;
  for (const p of description.partitions) {
    const low = p.nextOffset > BigInt(AGUI_SNAPSHOT_LOOKBACK) ? p.nextOffset - BigInt(AGUI_SNAPSHOT_LOOKBACK) : 0n;
    // newest first, one record at a time: a snapshot may be megabytes, so read no more than needed
    for (let offset = p.nextOffset - 1n; offset >= low; offset--) {
      const [record] = await transport.read({ stream, topic: AGUI_SNAPSHOT_TOPIC, partition: p.partition, offset, maxCount: 1, signal });
      if (record === undefined || record.offset !== offset) continue;
      if (headerText(record, FOLD_HEADER) !== AGUI_FOLD || headerText(record, FOLD_STREAM_HEADER) !== stream) continue;
      if (headerText(record, FOLD_TOPIC_HEADER) !== topic || headerText(record, FOLD_CONVERSATION_HEADER) !== id) continue;
      if (found === undefined || record.timestampMicros > found.ts) found = { partition: p.partition, offset, ts: record.timestampMicros, payload: record.payload };
      break;
    }
  }
  return found;
}

/** Appends a snapshot to `agui.snapshots` (created with one partition when missing). */
export async function appendAguiSnapshot(transport: LogTransport, identity: SnapshotIdentity, payload: Uint8Array, signal?: AbortSignal): Promise<{ partition: number; offset: bigint }> {
  const { stream } = identity;
  if ((await describeSnapshots(transport, stream, signal)) === undefined) await transport.ensureTopic({ stream, topic: AGUI_SNAPSHOT_TOPIC }, { partitions: 1 }, { signal });
  const text = (value: string) => ({ kind: 'string' as const, value: utf8.encode(value) });
  const headers = new Map([
    [FOLD_HEADER, text(AGUI_FOLD)],
    [FOLD_STREAM_HEADER, text(stream)],
    [FOLD_TOPIC_HEADER, text(identity.topic)],
    [FOLD_CONVERSATION_HEADER, text(identity.conversation.toString())],
  ]);
  const result = await transport.append({ stream, topic: AGUI_SNAPSHOT_TOPIC, records: [{ headers, payload }], routing: { partition: 0 }, payloadsImmutable: true, signal });
  return { partition: result.partition, offset: result.baseOffset };
}

function decodeImage(payload: Uint8Array, context: Record<string, unknown>) {
  try {
    if (payload.length > MAX_FOLD_SNAPSHOT_BYTES) throw new CodecError(`${payload.length} bytes exceed ${MAX_FOLD_SNAPSHOT_BYTES}`);
    const capsule = decodeFoldSnapshot(payload);
    const r = FieldReader.decode(capsule.state, SURFACE, { maxBytes: MAX_FOLD_SNAPSHOT_BYTES, maxItems: MAX_STATE_ITEMS });
    if (r.uint('version', U64_MAX) !== IMAGE_VERSION) throw new CodecError('unknown replay image version');
    const places = r.array('places').map((place) => {
      const [topic, partition, generation, next] = Array.isArray(place) ? (place as readonly CborValue[]) : [];
      const ok = typeof topic === 'string' && typeof partition === 'bigint' && partition <= U32_MAX && (generation === null || typeof generation === 'bigint') && typeof next === 'bigint';
      if (!ok || partition < 0n || next < 0n) throw new CodecError('a place must be [topic, partition, generation, next]');
      return { topic, partition: Number(partition), generation: generation ?? undefined, next };
    });
    const parsed = imageSchema.safeParse(JSON.parse(r.text('replay')));
    if (!parsed.success) throw new CodecError(`the replay image is malformed: ${parsed.error.issues[0]?.message ?? ''}`);
    for (const [, , events] of parsed.data.entries) for (const event of events) if (!EventSchema.safeParse(event).success) throw new CodecError('an event is not an AG-UI event');
    return { capsule, stream: r.text('stream'), topic: r.text('topic'), layout: r.text('layout'), places, replay: parsed.data };
  } catch (error) {
    throw reject('corrupt', 'the snapshot cannot be decoded within the limits', context, error);
  }
}

/**
 * Decodes a found snapshot and checks it against the log as it is now: the same conversation,
 * stream, topic and stream layout, the same places (topics and partitions, in the layout's order),
 * the same topic generations, every resume offset within its partition's end, and every kept
 * record before its place's resume offset.
 * `places` are the conversation's places as `describePlaces` finds them now, in `addresses` order.
 * @throws FoldSnapshotRejectedError naming the first check that failed.
 */
export function checkAguiSnapshot(
  found: FoundAguiSnapshot,
  identity: SnapshotIdentity,
  addresses: readonly ConversationAddress[],
  places: readonly PlaceState[],
): ReplayImage {
  const context = { stream: identity.stream, topic: AGUI_SNAPSHOT_TOPIC, partition: found.partition, offset: found.offset };
  const image = decodeImage(found.payload, context);
  if (!image.capsule.conversation.equals(identity.conversation)) throw reject('corrupt', 'the capsule is for another conversation than its headers', context);
  if (image.stream !== identity.stream) throw reject('stream', `written for stream ${JSON.stringify(image.stream)}`, context);
  if (image.layout !== identity.layout) throw reject('layout', `written under layout ${image.layout}, the client uses ${identity.layout}`, context);
  const samePlaces =
    image.topic === identity.topic &&
    image.places.length === addresses.length &&
    image.places.every((p, i) => p.topic === addresses[i]?.topic && p.partition === addresses[i]?.partition);
  if (!samePlaces) throw reject('topics', 'its places are not where the layout puts this conversation now', context);
  const cursors: SavedCursor[] = [];
  for (const [i, place] of image.places.entries()) {
    const address = addresses[i] as ConversationAddress;
    const now = places[i];
    if (now === undefined || now.generation !== place.generation) throw reject('generation', `topic ${JSON.stringify(address.topic)} was recreated since the snapshot`, context);
    const end = now.end;
    if (place.next > end) throw reject('beyond-end', `topic ${JSON.stringify(address.topic)} partition ${address.partition} resumes at ${place.next}, beyond its end ${end}`, context);
    cursors.push({ address, generation: place.generation, next: place.next });
  }
  const entries: SavedEntry[] = image.replay.entries.map(([at, offset, events, turn]) => ({ at, offset: BigInt(offset), events: events as AguiEvent[], turn: turn as TurnFacts }));
  if (entries.some((e) => e.at >= cursors.length || e.offset >= (cursors[e.at]?.next ?? 0n))) throw reject('corrupt', 'a kept record lies beyond its place’s resume offset', context);
  return { cursors, converter: image.replay.converter as ConverterImage, entries };
}
