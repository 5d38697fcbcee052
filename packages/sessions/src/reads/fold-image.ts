import {
  CodecError,
  ConversationId,
  FieldReader,
  decodeFoldSnapshot,
  decodeSessionStart,
  encodeCbor,
  encodeFoldSnapshot,
  encodeSessionStart,
  RecordId,
  type CborValue,
  type SkippedRecordHandler,
} from '@agdx/wire';
import { CallTally, callIdentityBudget, type CallIdentityBudget } from './call-tally.js';
import { REDELIVERY_WINDOW, type PositionWindow } from '../position-window.js';
import { noState, SessionFold, type Acc, type SessionStatus } from './session-fold.js';

/** Largest fold snapshot a reader decodes or a writer produces (the wire limit of the capsule). */
export const MAX_FOLD_SNAPSHOT_BYTES: number = 16 * 1024 * 1024;
/**
 * Most CBOR items in a snapshot's folded state: about 40 per session, so some 100,000 sessions,
 * plus the call identities of open sessions (at most 100,000 entries of up to 3 items).
 */
export const MAX_FOLD_SNAPSHOT_ITEMS = 4_500_000;
/**
 * Version of the folded-state layout inside the capsule's `state` bytes (2: with the call tally;
 * 3: with the redelivery window).
 */
const IMAGE_VERSION = 3n;
const SURFACE = 'session fold snapshot';
const U64_MAX = 0xffff_ffff_ffff_ffffn;
const U32_MAX = 0xffff_ffffn;
const STATUSES: ReadonlySet<string> = new Set<SessionStatus>(['submitted', 'active', 'paused', 'completed', 'failed', 'canceled', 'unrecognized']);

/** Where a fold stands on one topic. */
export interface TopicImage {
  readonly topic: string;
  /** The topic's generation when folded (`TopicDescription.createdAtMicros`). */
  readonly createdAtMicros: bigint | undefined;
  /** Per partition: the next offset to fold and the first offset the fold found. */
  readonly partitions: readonly { readonly partition: number; readonly next: bigint; readonly retainedFrom: bigint }[];
}

/** Everything a session reader needs to continue a fold: where it stands and what it folded. */
export interface FoldImage {
  readonly stream: string;
  /** The stream layout's fingerprint ({@link layoutFingerprint}). */
  readonly layout: string;
  readonly topics: readonly TopicImage[];
  /** Change-feed sequence of records expired before the fold began. */
  readonly seqBase: bigint;
  /** Last change-feed sequence folded. */
  readonly seq: bigint;
  readonly fold: SessionFold;
}

/** The conversation a stream's session fold snapshot is filed under. */
export function foldConversation(stream: string): ConversationId {
  return ConversationId.derive(`agdx.sessions.fold/${stream}`);
}

const opt = <T extends CborValue>(v: T | undefined): CborValue => (v === undefined ? null : v);

function accRow(id: ConversationId, acc: Acc, budget: CallIdentityBudget): CborValue {
  const c = acc.counters;
  return [
    id.toBytes(),
    acc.start === undefined ? null : encodeSessionStart(acc.start),
    acc.status,
    acc.implicit,
    opt(acc.ended?.recordKey),
    opt(acc.startedAt),
    opt(acc.endedAt),
    opt(acc.endReason),
    opt(acc.firstEventAt),
    opt(acc.lastEventAt),
    acc.pauseRequested,
    acc.cancelRequested,
    c.events,
    // identities only for open sessions: an ended one expects no more records of its calls
    acc.calls.toImage(acc.ended === undefined, budget),
    c.tokensIn,
    c.tokensOut,
    c.costMicros,
    c.errors,
    BigInt(acc.held),
    acc.laneConflict,
  ];
}

/**
 * Encodes a fold as a seed `FoldSnapshot` capsule: `conversation` is {@link foldConversation},
 * `as_of` the last folded offset of each lane partition (the first topic), and `state` a map of
 * `image` (the folded summaries with the frontier of every topic, its generation and the layout)
 * and `sha256` (its digest).
 * @throws CodecError when the result would exceed {@link MAX_FOLD_SNAPSHOT_BYTES}.
 */
export async function encodeFoldImage(image: FoldImage): Promise<Uint8Array> {
  const sessions: CborValue[] = [];
  const budget = callIdentityBudget();
  for (const { id, acc } of image.fold.accs.values()) sessions.push(accRow(id, acc, budget));
  const heartbeats: CborValue[] = [];
  for (const [key, ts] of image.fold.heartbeats) {
    const id = ConversationId.tryParse(key);
    if (id !== undefined) heartbeats.push([id.toBytes(), ts]);
  }
  const topics: CborValue[] = image.topics.map((t) => [t.topic, opt(t.createdAtMicros), t.partitions.map((p) => [BigInt(p.partition), p.next, p.retainedFrom])]);
  const folded = encodeCbor(
    new Map<CborValue, CborValue>([
      ['v', IMAGE_VERSION],
      ['stream', image.stream],
      ['layout', image.layout],
      ['topics', topics],
      ['seq_base', image.seqBase],
      ['seq', image.seq],
      ['sessions', sessions],
      ['heartbeats', heartbeats],
      ['redelivery', redeliveryRows(image.fold.redelivery)],
    ]),
  );
  // The digest makes a flipped byte a refused snapshot instead of a wrong count.
  const state = encodeCbor(new Map<CborValue, CborValue>([['image', folded], ['sha256', await sha256(folded)]]));
  const asOf = new Map<number, bigint>();
  for (const p of image.topics[0]?.partitions ?? []) if (p.next > 0n) asOf.set(p.partition, p.next - 1n);
  const bytes = encodeFoldSnapshot({ conversation: foldConversation(image.stream), asOf, state });
  if (bytes.length > MAX_FOLD_SNAPSHOT_BYTES) {
    throw new CodecError(`a session fold snapshot of ${bytes.length} bytes exceeds ${MAX_FOLD_SNAPSHOT_BYTES}`, { context: { surface: SURFACE, operation: 'encode' } });
  }
  return bytes;
}

/**
 * The redelivery window as one row per topic partition: its `topic:partition` key, the record
 * ids as one byte string of 16 bytes each, and their offsets (ascending), oldest first.
 */
function redeliveryRows(window: PositionWindow): CborValue[] {
  const rows: CborValue[] = [];
  for (const [partition, entries] of window.partitions()) {
    const ids = new Uint8Array(entries.length * 16);
    entries.forEach((e, i) => ids.set(RecordId.parse(e.key).toBytes(), i * 16));
    rows.push([partition, ids, entries.map((e) => e.offset)]);
  }
  return rows;
}

/** Restores the rows of {@link redeliveryRows} into `window`, refusing any a writer could not have produced. */
function readRedelivery(rows: readonly CborValue[], window: PositionWindow): void {
  const partitions = new Set<string>();
  for (const value of rows) {
    const r = row(value, 3, 'a redelivery window');
    const [partition, ids, offsets] = r;
    if (typeof partition !== 'string' || partitions.has(partition)) throw bad('a redelivery window needs a partition of its own');
    partitions.add(partition);
    // a window holds at most one record per offset of its span
    if (!Array.isArray(offsets) || offsets.length > REDELIVERY_WINDOW) throw bad('a redelivery window holds too many offsets');
    if (!(ids instanceof Uint8Array) || ids.length !== offsets.length * 16) throw bad('a redelivery window needs 16 bytes per offset');
    let previous = -1n;
    (offsets as readonly CborValue[]).forEach((o, i) => {
      const offset = u64(o, 'a redelivery offset');
      if (offset <= previous) throw bad('redelivery offsets must ascend');
      previous = offset;
      window.note(partition, offset, RecordId.fromBytes(ids.subarray(i * 16, i * 16 + 16)).toString());
    });
  }
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

function bad(message: string): CodecError {
  return new CodecError(`${SURFACE}: ${message}`, { context: { surface: SURFACE } });
}

function row(value: CborValue | undefined, length: number, what: string): readonly CborValue[] {
  if (!Array.isArray(value) || value.length !== length) throw bad(`${what} must be an array of ${length}`);
  return value as readonly CborValue[];
}

function u64(value: CborValue | undefined, what: string, max = U64_MAX): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > max) throw bad(`${what} must be an unsigned integer`);
  return value;
}

function u64Opt(value: CborValue | undefined, what: string): bigint | undefined {
  return value === null ? undefined : u64(value, what);
}

function textOpt(value: CborValue | undefined, what: string): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'string') throw bad(`${what} must be text`);
  return value;
}

function bool(value: CborValue | undefined, what: string): boolean {
  if (typeof value !== 'boolean') throw bad(`${what} must be a boolean`);
  return value;
}

function conversation(value: CborValue | undefined): ConversationId {
  if (!(value instanceof Uint8Array) || value.length !== 16) throw bad('a session id must be 16 bytes');
  return ConversationId.fromBytes(value);
}

function readAcc(value: CborValue): { id: ConversationId; acc: Acc } {
  const r = row(value, 20, 'a session');
  const id = conversation(r[0]);
  const start = r[1];
  if (start !== null && !(start instanceof Uint8Array)) throw bad('a session start must be bytes');
  const status = r[2];
  if (typeof status !== 'string' || !STATUSES.has(status)) throw bad('unknown session status');
  const ended = textOpt(r[4], 'ended');
  // Built in one literal (not from newAcc) so a restore of many sessions allocates each part once.
  const acc: Acc = {
    start: start === null ? undefined : decodeSessionStart(start),
    status: status as SessionStatus,
    implicit: bool(r[3], 'implicit'),
    ended: ended === undefined ? undefined : { recordKey: ended },
    startedAt: u64Opt(r[5], 'startedAt'),
    endedAt: u64Opt(r[6], 'endedAt'),
    endReason: textOpt(r[7], 'endReason'),
    firstEventAt: u64Opt(r[8], 'firstEventAt'),
    lastEventAt: u64Opt(r[9], 'lastEventAt'),
    lastHeartbeatAt: undefined,
    pauseRequested: bool(r[10], 'pauseRequested'),
    cancelRequested: bool(r[11], 'cancelRequested'),
    events: [],
    counters: {
      events: u64(r[12], 'events'),
      tokensIn: u64(r[14], 'tokensIn'),
      tokensOut: u64(r[15], 'tokensOut'),
      costMicros: u64(r[16], 'costMicros'),
      errors: u64(r[17], 'errors'),
    },
    calls: CallTally.fromImage(r[13]),
    held: Number(u64(r[18], 'held', U32_MAX)),
    laneConflict: bool(r[19], 'laneConflict'),
    state: noState(),
    partial: true,
  };
  return { id, acc };
}

function readTopic(value: CborValue): TopicImage {
  const r = row(value, 3, 'a topic');
  const topic = r[0];
  if (typeof topic !== 'string') throw bad('a topic name must be text');
  const partitions = r[2];
  if (!Array.isArray(partitions)) throw bad('topic partitions must be an array');
  return {
    topic,
    createdAtMicros: u64Opt(r[1], 'createdAtMicros'),
    partitions: (partitions as readonly CborValue[]).map((p) => {
      const pr = row(p, 3, 'a partition');
      return { partition: Number(u64(pr[0], 'partition', U32_MAX)), next: u64(pr[1], 'next'), retainedFrom: u64(pr[2], 'retainedFrom') };
    }),
  };
}

/**
 * Decodes a session fold snapshot written by {@link encodeFoldImage}, within
 * {@link MAX_FOLD_SNAPSHOT_BYTES} and {@link MAX_FOLD_SNAPSHOT_ITEMS}, after checking the SHA-256
 * digest of the folded state. Checks only the bytes;
 * the reader checks stream, layout, generations and offsets against the log.
 * @throws CodecError (or the wire's InvalidError) for anything malformed.
 */
export async function decodeFoldImage(bytes: Uint8Array, onError?: SkippedRecordHandler): Promise<FoldImage & { readonly conversation: ConversationId }> {
  if (bytes.length > MAX_FOLD_SNAPSHOT_BYTES) throw bad(`${bytes.length} bytes exceed ${MAX_FOLD_SNAPSHOT_BYTES}`);
  const capsule = decodeFoldSnapshot(bytes);
  const sealed = FieldReader.decode(capsule.state, SURFACE, { maxBytes: MAX_FOLD_SNAPSHOT_BYTES, maxItems: 16 });
  const folded = sealed.bytes('image');
  if (!sameBytes(await sha256(folded), sealed.fixedBytes('sha256', 32))) throw bad('the digest does not match the folded state');
  const r = FieldReader.decode(folded, SURFACE, { maxBytes: MAX_FOLD_SNAPSHOT_BYTES, maxItems: MAX_FOLD_SNAPSHOT_ITEMS });
  if (r.u64('v') !== IMAGE_VERSION) throw bad('unknown version');
  const stream = r.text('stream');
  const fold = new SessionFold(stream, { keepEvents: () => false, onError });
  for (const value of r.array('sessions')) {
    const { id, acc } = readAcc(value);
    const key = id.toString();
    if (fold.accs.has(key)) throw bad('a session appears twice');
    fold.accs.set(key, { id, acc });
  }
  for (const value of r.array('heartbeats')) {
    const h = row(value, 2, 'a heartbeat');
    fold.heartbeats.set(conversation(h[0]).toString(), u64(h[1], 'heartbeat time'));
  }
  readRedelivery(r.array('redelivery'), fold.redelivery);
  const seqBase = r.u64('seq_base');
  const seq = r.u64('seq');
  if (seq < seqBase) throw bad('seq is below seq_base');
  return { conversation: capsule.conversation, stream, layout: r.text('layout'), topics: r.array('topics').map(readTopic), seqBase, seq, fold };
}
