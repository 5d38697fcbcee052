/**
 * Incremental AG-UI replay: what `AguiBridge.aguiEvents` and the live handler keep per
 * conversation between calls (the per-address next offsets, the converter with its channel and
 * state fold, each record's events and turn facts), so a repeated call or a new request on the
 * thread reads only the records written since the last one.
 */

import { describePlaces, recordPlacementMismatch, type PlaceState, type StreamLayout } from '@agdx/agents';
import { FoldSnapshotRejectedError } from '@agdx/sessions';
import type { LogTransport } from '@agdx/transport';
import { CodecError, reportSkippedRecord, type ConversationId, type SkippedRecordHandler } from '@agdx/wire';
import { AGUI_SNAPSHOT_TOPIC, appendAguiSnapshot, checkAguiSnapshot, encodeAguiSnapshot, findAguiSnapshot, type ReplayImage, type SavedEntry, type SnapshotIdentity } from './agui-snapshot.js';
import { readConversationRange, unreadableStateReporter, type ConversationAddress, type ConversationRecord } from './conversation-log.js';
import { AguiConverter } from './converter.js';
import type { AguiEvent } from './events.js';
import { concernsTurns, turnFactsOf, type TurnFacts } from './turn.js';

/** Conversations a bridge keeps replay state for; the least recently asked is dropped first. */
export const KEPT_REPLAYS = 256;

/**
 * What a replay renders: the reference mapping (`aguiEvents`, the handler by default), or with the
 * opt-in `agdx.*` CUSTOM events, on the conversation's topic alone (POST runs) or with its
 * human-input places (GET follows). Each is a replay of its own, since the events differ.
 */
export type ReplayMode = 'reference' | 'agdx' | 'agdx-with-human-input';

/** Where one address stands: the topic generation it was read under and the next offset to read. */
interface Cursor {
  readonly address: ConversationAddress;
  readonly generation: bigint | undefined;
  next: bigint;
}

/** One record of the replay that rendered something or opens or ends a turn (the others are not kept). */
export type ReplayEntry = SavedEntry;

/** Where a replay stands after {@link ConversationReplay.advance}. */
export interface ReplayView {
  /** Changes whenever the replay started over (then earlier entries and offsets mean nothing). */
  readonly epoch: number;
  /** The entries so far, in replay order; only ever appended to within an epoch. */
  readonly entries: readonly ReplayEntry[];
  /** How many entries the replay held at this call. */
  readonly count: number;
  /** Per address, the next offset the replay reads (the end it read to). */
  readonly next: readonly bigint[];
}

/** What a read needs that does not change between calls. */
export interface ReplayContext {
  readonly transport: LogTransport;
  readonly layout: StreamLayout;
  readonly onError: SkippedRecordHandler | undefined;
  /**
   * Fold snapshots: `stream` and `layout` (`layoutFingerprint`) identify this replay's; `read`
   * lets a new replay start from the newest one; `every` writes one after that many records were
   * folded since the last. Undefined: no snapshots are read or written.
   */
  readonly snapshots?: { readonly stream: string; readonly layout: string; readonly read: boolean; readonly every: number | undefined } | undefined;
}

/** Where an AG-UI fold snapshot was written. */
export interface AguiSnapshotWritten {
  /** `agui.snapshots`. */
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** Size of the capsule. */
  readonly bytes: number;
}

/** Tells `onError` that a `snapshotEvery` snapshot could not be written (a handler that throws is ignored). */
function reportUnwrittenSnapshot(context: ReplayContext, cause: unknown): void {
  const error = new CodecError('an AG-UI fold snapshot could not be written', { cause, context: { stream: context.snapshots?.stream, topic: AGUI_SNAPSHOT_TOPIC } });
  try {
    context.onError?.(error);
  } catch {
    // the handler's own failure is its business; the read goes on
  }
}

function sameAddresses(a: readonly ConversationAddress[], b: readonly ConversationAddress[]): boolean {
  return a.length === b.length && a.every((x, i) => x.stream === b[i]?.stream && x.topic === b[i]?.topic && x.partition === b[i]?.partition);
}

/**
 * One conversation's replay on one topic. Calls are serialised: a call started while another runs
 * waits for it, so two callers never convert the same records twice.
 */
export class ConversationReplay {
  readonly #conversation: ConversationId;
  readonly #topic: string;
  #cursors: Cursor[] = [];
  #converter: AguiConverter;
  /** The reporter of the record being converted (the converter outlives a call, its reporters do not). */
  #current: ReturnType<typeof unreadableStateReporter> | undefined;
  #events: AguiEvent[] = [];
  #entries: ReplayEntry[] = [];
  #epoch = 0;
  /** Whether a snapshot was looked for (only a new replay's first read looks). */
  #snapshotTried = false;
  #foldedSinceSnapshot = 0;
  #queue: Promise<unknown> = Promise.resolve();

  readonly #mode: ReplayMode;

  /**
   * @param conversation the conversation replayed; @param topic the topic it was asked on;
   * @param mode which events the replay renders (default the reference mapping)
   */
  constructor(conversation: ConversationId, topic: string, mode: ReplayMode = 'reference') {
    this.#conversation = conversation;
    this.#topic = topic;
    this.#mode = mode;
    this.#converter = this.#newConverter();
  }

  /**
   * Reads every address from its kept offset to its end at the time of the call, converts the new
   * records and returns a copy of all the events so far. Starts over from offset 0 when the
   * addresses changed (layout or partition count) or a topic's generation changed (its
   * `createdAtMicros`, or an end below the kept offset: the topic was recreated).
   * @throws LayoutMismatchError when a new record sits where only another layout writes it; the
   * kept state is then dropped, so the next call reads from 0 and throws again.
   */
  async events(context: ReplayContext, addresses: readonly ConversationAddress[], signal?: AbortSignal): Promise<AguiEvent[]> {
    await this.advance(context, addresses, signal);
    return this.#events.slice();
  }

  /**
   * Like {@link events}, but answers where the replay stands (its entries, per-address next
   * offsets and epoch) without copying the events, for readers that follow the thread.
   */
  advance(context: ReplayContext, addresses: readonly ConversationAddress[], signal?: AbortSignal): Promise<ReplayView> {
    return this.#serial(async () => {
      const view = await this.#advance(context, addresses, signal);
      const every = context.snapshots?.every;
      if (every !== undefined && this.#foldedSinceSnapshot >= every) {
        try {
          await this.#writeSnapshot(context, signal);
        } catch (error) {
          // the read still answers; the next read past `every` tries again
          reportUnwrittenSnapshot(context, error);
        }
      }
      return view;
    });
  }

  /**
   * Reads what is new and writes a fold snapshot of the replay (see `agui-snapshot.ts`).
   * @throws CodecError when the snapshot exceeds the capsule limit; the transport's errors.
   */
  snapshot(context: ReplayContext, addresses: readonly ConversationAddress[], signal?: AbortSignal): Promise<AguiSnapshotWritten> {
    return this.#serial(async () => {
      await this.#advance(context, addresses, signal);
      return this.#writeSnapshot(context, signal);
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #identity(context: ReplayContext): SnapshotIdentity {
    const snapshots = context.snapshots;
    if (snapshots === undefined) throw new CodecError('this reader has no snapshot settings');
    return { stream: snapshots.stream, topic: this.#topic, conversation: this.#conversation, layout: snapshots.layout };
  }

  async #writeSnapshot(context: ReplayContext, signal?: AbortSignal): Promise<AguiSnapshotWritten> {
    const identity = this.#identity(context);
    const image: ReplayImage = { cursors: this.#cursors, converter: this.#converter.image(), entries: this.#entries };
    const payload = encodeAguiSnapshot(identity, image);
    const at = await appendAguiSnapshot(context.transport, identity, payload, signal);
    this.#foldedSinceSnapshot = 0;
    return { topic: AGUI_SNAPSHOT_TOPIC, partition: at.partition, offset: at.offset, bytes: payload.length };
  }

  /** Restores the newest valid snapshot, or reports why the one found cannot be used. */
  async #restoreSnapshot(context: ReplayContext, addresses: readonly ConversationAddress[], places: readonly PlaceState[], signal?: AbortSignal): Promise<void> {
    this.#snapshotTried = true;
    const identity = this.#identity(context);
    const found = await findAguiSnapshot(context.transport, identity, signal);
    if (found === undefined) return;
    try {
      const image = checkAguiSnapshot(found, identity, addresses, places);
      let converter: AguiConverter;
      try {
        converter = AguiConverter.fromImage(image.converter, { onUnreadableState: (envelope) => this.#current?.report(envelope) });
      } catch (error) {
        throw new FoldSnapshotRejectedError('corrupt', 'the converter image is impossible', { cause: error });
      }
      this.#cursors = image.cursors.map((c) => ({ ...c }));
      this.#converter = converter;
      this.#entries = [...image.entries];
      this.#events = image.entries.flatMap((e) => e.events);
    } catch (error) {
      // a bad snapshot never changes an answer: report it and read the log from the start
      reportSkippedRecord(context.onError, { stream: identity.stream, topic: AGUI_SNAPSHOT_TOPIC, partition: found.partition, offset: found.offset }, error);
    }
  }

  async #advance(context: ReplayContext, addresses: readonly ConversationAddress[], signal?: AbortSignal): Promise<ReplayView> {
    const { transport } = context;
    const described = await describePlaces(transport, addresses, signal);
    if (!this.#snapshotTried && this.#cursors.length === 0 && context.snapshots?.read === true) await this.#restoreSnapshot(context, addresses, described, signal);
    const kept = this.#cursors;
    const stale =
      !sameAddresses(
        kept.map((c) => c.address),
        addresses,
      ) || described.some((d, i) => d.generation !== kept[i]?.generation || d.end < (kept[i]?.next ?? 0n));
    const cursors: Cursor[] = stale ? described.map((d) => ({ address: d.address, generation: d.generation, next: 0n })) : kept.map((c) => ({ ...c }));

    // Read everything new before touching the kept state, so a failed or cancelled read leaves it as it was.
    const fresh: { readonly at: number; readonly record: ConversationRecord }[] = [];
    for (const [at, cursor] of cursors.entries()) {
      const end = described[at]?.end ?? 0n;
      for (const record of await readConversationRange(transport, cursor.address, this.#conversation, cursor.next, end, signal, context.onError)) fresh.push({ at, record });
      cursor.next = end;
    }
    if (cursors.length > 1) {
      // stable: equal timestamps keep address order, and an address is already in order
      fresh.sort((a, b) => (a.record.timestampMicros === b.record.timestampMicros ? 0 : a.record.timestampMicros < b.record.timestampMicros ? -1 : 1));
    }
    const home = cursors[0]?.address;
    for (const { at, record } of fresh) {
      if (at !== 0 || home === undefined) continue;
      const found = { ...home, offset: record.offset, kind: record.envelope.kind, target: record.envelope.target?.value };
      const mismatch = recordPlacementMismatch(context.layout, this.#topic, home.partition, found);
      if (mismatch !== undefined) {
        this.#reset();
        throw mismatch;
      }
    }

    if (stale) this.#reset();
    const reporters = cursors.map((cursor) => unreadableStateReporter(cursor.address, context.onError));
    for (const { at, record } of fresh) {
      this.#current = reporters[at];
      if (this.#current !== undefined) this.#current.offset = record.offset;
      const events = this.#converter.convert(record.envelope, cursors[at]?.address.topic);
      this.#events.push(...events);
      const turn = turnFactsOf(record.envelope, events);
      if (events.length > 0 || concernsTurns(turn)) this.#entries.push({ at, offset: record.offset, events, turn });
    }
    this.#foldedSinceSnapshot += fresh.length;
    this.#current = undefined;
    this.#cursors = cursors;
    return { epoch: this.#epoch, entries: this.#entries, count: this.#entries.length, next: cursors.map((c) => c.next) };
  }

  #reset(): void {
    this.#cursors = [];
    this.#converter = this.#newConverter();
    this.#events = [];
    // a new array: followers holding the old one see it end, and the epoch tells them why
    this.#entries = [];
    this.#epoch++;
  }

  #newConverter(): AguiConverter {
    return new AguiConverter({ onUnreadableState: (envelope) => this.#current?.report(envelope), agdxEvents: this.#mode !== 'reference' });
  }
}

/**
 * The kept replays of a bridge or a handler, by stream, topic and conversation: at most
 * {@link KEPT_REPLAYS}, the least recently asked dropped first. A dropped replay still serves the
 * callers holding it; the next request for its conversation starts a new one.
 */
export class ReplayCache {
  readonly #replays = new Map<string, ConversationReplay>();

  /** The kept replay of `conversation` on `stream`/`topic`, made when missing, and now the most recently asked. */
  get(stream: string, topic: string, conversation: ConversationId, mode: ReplayMode = 'reference'): ConversationReplay {
    const key = `${stream}\u0000${topic}\u0000${conversation.toString()}\u0000${mode}`;
    const replay = this.#replays.get(key) ?? new ConversationReplay(conversation, topic, mode);
    // re-inserting keeps the map in least-recently-asked order, so the first key is the one to drop
    this.#replays.delete(key);
    this.#replays.set(key, replay);
    if (this.#replays.size > KEPT_REPLAYS) {
      const oldest = this.#replays.keys().next();
      if (oldest.done !== true) this.#replays.delete(oldest.value);
    }
    return replay;
  }
}
