import type { StreamLayout } from '@agdx/agents';
import type { LogTransport } from '@agdx/transport';
import type { ConversationId, SkippedRecordHandler } from '@agdx/wire';
import { describeIfExists } from '../checkpoint/checkpoint.js';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { CONTEXT_READ_WINDOW, conversationKeys, readPartition, sortKeyed, type Keyed } from './read-turns.js';
import type { ContextMessage } from './session-turn.js';
import { firstCopies } from './turn-copies.js';
import { turnPartitions } from './turn-partitions.js';

/** Conversations whose read windows one sessions factory keeps (least recently used dropped first). */
export const MAX_CACHED_TURN_WINDOWS = 64;
/**
 * Turns the kept read windows of one sessions factory hold together (each costs about 700 bytes
 * of heap besides its bytes): past it the least recently read windows are dropped, and a window
 * that alone holds more is not kept. 64 windows of six topics could otherwise hold 3,840,000.
 */
export const MAX_CACHED_TURNS = 100_000;
/** Payload and header bytes the kept read windows of one sessions factory hold together (64 MiB), dropped like {@link MAX_CACHED_TURNS}. */
export const MAX_CACHED_TURN_BYTES: number = 64 * 1024 * 1024;

const WINDOW = BigInt(CONTEXT_READ_WINDOW);

/** What one partition's window holds between reads. */
interface PartitionWindow {
  /** The topic generation the turns were read from. */
  createdAtMicros: bigint | undefined;
  /** Every offset below this was read. */
  next: bigint;
  /** The conversation's turns read so far, in offset order; those from `head` on are still in the window. */
  found: Keyed[];
  head: number;
  /** Payload and header value bytes of every entry of `found`, those before `head` included. */
  bytes: number;
}

/** What a read found on one partition, applied to the window only once every partition was read. */
interface PartitionUpdate {
  readonly partition: number;
  readonly createdAtMicros: bigint | undefined;
  readonly kept: PartitionWindow | undefined;
  /** The lowest offset still in the window: the window's start, or the first retained record when later. */
  readonly from: bigint;
  readonly tail: bigint;
  readonly fresh: Keyed[];
}

/** The oldest kept turn at or after `start` (the ones before it leave the window on this read anyway). */
function oldestFrom(w: PartitionWindow, start: bigint): Keyed | undefined {
  for (let i = w.head; i < w.found.length; i++) {
    const k = w.found[i] as Keyed;
    if (k.message.id.offset >= start) return k;
  }
  return undefined;
}

/**
 * The open read window of one conversation on a fixed list of topics (the newest
 * {@link CONTEXT_READ_WINDOW} records of every partition where the stream layout puts the
 * conversation's records: its own partition of each turn topic), kept between reads: each read asks the
 * log only for the records appended since the previous one, plus one record per partition that
 * holds kept turns, to learn whether the log has since dropped the oldest of them (expiry or
 * retention). The answer is exactly what a read of the whole window would give. A topic that
 * disappears, is recreated, or ends below what was read starts its window over. Reads run one at
 * a time, and a failed read leaves the window as it was.
 */
export class TurnWindow {
  readonly #stream: string;
  readonly #conversation: ConversationId;
  readonly #topics: readonly string[];
  readonly #layout: StreamLayout | undefined;
  readonly #keys: { readonly textBytes: Uint8Array; readonly bigEndian: Uint8Array };
  #partitions = new Map<string, Map<number, PartitionWindow>>();
  readonly #identities = new WindowIdentities();
  #queue: Promise<unknown> = Promise.resolve();

  /** @param layout the stream layout asked where the conversation's records are; every partition is read without one. */
  constructor(stream: string, conversation: ConversationId, topics: readonly string[], layout?: StreamLayout) {
    this.#stream = stream;
    this.#conversation = conversation;
    this.#topics = [...topics];
    this.#layout = layout;
    this.#keys = conversationKeys(conversation);
  }

  /** The turns this window holds, those the window slid past but not yet released included, and their bytes. */
  get held(): { readonly turns: number; readonly bytes: number } {
    let turns = 0;
    let bytes = 0;
    for (const partitions of this.#partitions.values()) {
      for (const w of partitions.values()) {
        turns += w.found.length;
        bytes += w.bytes;
      }
    }
    return { turns, bytes };
  }

  /** The conversation's turns within the window, in read order (broker time, topic, partition, offset). */
  read(transport: LogTransport, signal?: AbortSignal, onError?: SkippedRecordHandler): Promise<ContextMessage[]> {
    const run = this.#queue.then(() => this.#read(transport, signal, onError));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #read(transport: LogTransport, signal: AbortSignal | undefined, onError: SkippedRecordHandler | undefined): Promise<ContextMessage[]> {
    // topics and partitions are read concurrently: over a network transport the round trips overlap
    const updates = await Promise.all(
      this.#topics.map(async (topic, topicIndex) => {
        const description = await describeIfExists(transport, this.#stream, topic, signal);
        if (description === undefined) return { topic, partitions: undefined };
        const known = this.#partitions.get(topic);
        const located = await turnPartitions(this.#layout, description, this.#conversation);
        const partitions = await Promise.all(
          located.map((p) => this.#readPartition(transport, topic, topicIndex, description.createdAtMicros, p.partition, p.nextOffset, known?.get(p.partition), signal, onError)),
        );
        return { topic, partitions };
      }),
    );
    // nothing above changed the window, so a read that threw left it as it was
    const out: Keyed[] = [];
    const identities = this.#identities;
    for (const { topic, partitions } of updates) {
      const old = this.#partitions.get(topic);
      if (partitions === undefined) {
        for (const w of old?.values() ?? []) identities.forget(w);
        this.#partitions.delete(topic);
        continue;
      }
      const next = new Map<number, PartitionWindow>();
      for (const update of partitions) {
        const previous = old?.get(update.partition);
        // a window started over (another generation, a tail below what was read) no longer holds the old turns
        if (previous !== undefined && previous !== update.kept) identities.forget(previous);
        const w = apply(update, identities);
        next.set(update.partition, w);
        for (let i = w.head; i < w.found.length; i++) out.push(w.found[i] as Keyed);
      }
      for (const [partition, w] of old ?? []) if (!next.has(partition)) identities.forget(w);
      this.#partitions.set(topic, next);
    }
    // The window keeps every copy (so it stays what a read of the whole window holds) and the
    // answer takes each turn once; while no identity is in the window twice, nothing is to drop.
    const sorted = sortKeyed(out);
    return (identities.repeated > 0 ? firstCopies(sorted) : sorted).map((k) => k.message);
  }

  async #readPartition(
    transport: LogTransport,
    topic: string,
    topicIndex: number,
    createdAtMicros: bigint | undefined,
    partition: number,
    tail: bigint,
    known: PartitionWindow | undefined,
    signal: AbortSignal | undefined,
    onError: SkippedRecordHandler | undefined,
  ): Promise<PartitionUpdate> {
    const windowStart = tail > WINDOW ? tail - WINDOW : 0n;
    // another generation of the topic, or a tail below what was read: what was kept is not this log's
    const kept = known !== undefined && known.createdAtMicros === createdAtMicros && tail >= known.next ? known : undefined;
    let from = windowStart;
    const oldest = kept === undefined ? undefined : oldestFrom(kept, windowStart);
    if (oldest !== undefined) {
      // Expiry and retention drop a partition's oldest records: the first record still held at or
      // after the oldest kept turn says which kept turns a read of the whole window would miss.
      const [first] = await transport.read({ stream: this.#stream, topic, partition, offset: oldest.message.id.offset, maxCount: 1, signal });
      const held = first === undefined ? tail : first.offset;
      if (held > from) from = held;
    }
    const readFrom = kept !== undefined && kept.next > from ? kept.next : from;
    const fresh =
      readFrom < tail
        ? await readPartition({
            transport,
            stream: this.#stream,
            topic,
            topicIndex,
            partition,
            range: { start: readFrom, end: tail },
            conversation: this.#conversation,
            textBytes: this.#keys.textBytes,
            bigEndian: this.#keys.bigEndian,
            signal,
            onError,
          })
        : [];
    return { partition, createdAtMicros, kept, from, tail, fresh };
  }
}

/** The bytes a kept turn holds: its payload and header values. */
function turnBytes(k: Keyed): number {
  let n = k.message.payload.byteLength;
  for (const header of k.message.headers.values()) n += header.value.byteLength;
  return n;
}

/**
 * How many turns in the window (from each partition's `head` on) carry each identity, kept as
 * turns enter and leave it, so that a read whose window holds no identity twice (the common case)
 * skips the copy filter instead of walking every identified turn of the window again.
 */
class WindowIdentities {
  readonly #counts = new Map<string, number>();
  /** Identities held more than once. */
  repeated = 0;

  add(identity: string | undefined): void {
    if (identity === undefined) return;
    const count = (this.#counts.get(identity) ?? 0) + 1;
    this.#counts.set(identity, count);
    if (count === 2) this.repeated++;
  }

  remove(identity: string | undefined): void {
    if (identity === undefined) return;
    const count = (this.#counts.get(identity) ?? 0) - 1;
    if (count <= 0) this.#counts.delete(identity);
    else this.#counts.set(identity, count);
    if (count === 1) this.repeated--;
  }

  /** Removes every turn `w` still holds in the window. */
  forget(w: PartitionWindow): void {
    for (let i = w.head; i < w.found.length; i++) this.remove((w.found[i] as Keyed).identity);
  }
}

function apply(update: PartitionUpdate, identities: WindowIdentities): PartitionWindow {
  const w: PartitionWindow = update.kept ?? { createdAtMicros: update.createdAtMicros, next: 0n, found: [], head: 0, bytes: 0 };
  for (const k of update.fresh) {
    w.found.push(k);
    w.bytes += turnBytes(k);
    identities.add(k.identity);
  }
  while (w.head < w.found.length && (w.found[w.head] as Keyed).message.id.offset < update.from) identities.remove((w.found[w.head++] as Keyed).identity);
  // turns that left the window are skipped by `head`; once they are the majority the list is rebuilt
  if (w.head > 1024 && w.head * 2 > w.found.length) {
    for (let i = 0; i < w.head; i++) w.bytes -= turnBytes(w.found[i] as Keyed);
    w.found = w.found.slice(w.head);
    w.head = 0;
  }
  w.next = update.tail;
  return w;
}

const caches = new WeakMap<SessionsRuntime, Map<string, TurnWindow>>();

/** What the kept read windows of one sessions factory hold. */
export interface TurnWindowUsage {
  /** Conversations (and topic lists) with a kept window: at most {@link MAX_CACHED_TURN_WINDOWS}. */
  readonly windows: number;
  /** Turns held: at most {@link MAX_CACHED_TURNS}. */
  readonly turns: number;
  /** Their payload and header bytes: at most {@link MAX_CACHED_TURN_BYTES}. */
  readonly bytes: number;
}

/** What the kept windows of `runtime` hold now. */
export function turnWindowUsage(runtime: SessionsRuntime): TurnWindowUsage {
  let turns = 0;
  let bytes = 0;
  const cache = caches.get(runtime);
  for (const window of cache?.values() ?? []) {
    const held = window.held;
    turns += held.turns;
    bytes += held.bytes;
  }
  return { windows: cache?.size ?? 0, turns, bytes };
}

/**
 * Reads the open window of `conversation` on `topics`, kept between reads for this sessions
 * factory and shared by every session handle on it, so that each context or turn read continues
 * where the last one stopped. After the read the kept windows are brought back within
 * {@link MAX_CACHED_TURNS} and {@link MAX_CACHED_TURN_BYTES}: the least recently read go first,
 * and this one is not kept when it alone is over (its next read reads the whole window again).
 */
export async function readTurnWindow(
  runtime: SessionsRuntime,
  stream: string,
  conversation: ConversationId,
  topics: readonly string[],
  signal?: AbortSignal,
): Promise<ContextMessage[]> {
  let cache = caches.get(runtime);
  if (cache === undefined) caches.set(runtime, (cache = new Map()));
  const key = `${stream}\u0000${conversation.toString()}\u0000${topics.join('\u0000')}`;
  let window = cache.get(key);
  if (window !== undefined) {
    // re-inserting marks it most recently used (a Map iterates in insertion order)
    cache.delete(key);
  } else {
    window = new TurnWindow(stream, conversation, topics, runtime.client.layout);
    if (cache.size >= MAX_CACHED_TURN_WINDOWS) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, window);
  const turns = await window.read(runtime.client.transport, signal, runtime.onError);
  withinBudget(cache, key, window);
  return turns;
}

/**
 * Drops windows until the kept ones fit the budget: `current` first when it alone is over (the
 * others fitted before this read), else the least recently used others.
 */
function withinBudget(cache: Map<string, TurnWindow>, key: string, current: TurnWindow): void {
  const own = current.held;
  if ((own.turns > MAX_CACHED_TURNS || own.bytes > MAX_CACHED_TURN_BYTES) && cache.get(key) === current) cache.delete(key);
  let turns = 0;
  let bytes = 0;
  for (const window of cache.values()) {
    const held = window.held;
    turns += held.turns;
    bytes += held.bytes;
  }
  for (const [k, window] of cache) {
    if (turns <= MAX_CACHED_TURNS && bytes <= MAX_CACHED_TURN_BYTES) return;
    if (window === current) continue;
    const held = window.held;
    cache.delete(k);
    turns -= held.turns;
    bytes -= held.bytes;
  }
}
