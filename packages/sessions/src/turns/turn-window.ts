import type { LogTransport } from '@agdx/transport';
import type { ConversationId, SkippedRecordHandler } from '@agdx/wire';
import { describeIfExists } from '../checkpoint/checkpoint.js';
import type { SessionsRuntime } from '../sessions-runtime.js';
import { CONTEXT_READ_WINDOW, conversationKeys, readPartition, sortKeyed, type Keyed } from './read-turns.js';
import type { ContextMessage } from './session-turn.js';

/** Conversations whose read windows one sessions factory keeps (least recently used dropped first). */
export const MAX_CACHED_TURN_WINDOWS = 64;

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
 * {@link CONTEXT_READ_WINDOW} records of every partition), kept between reads: each read asks the
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
  readonly #keys: { readonly textBytes: Uint8Array; readonly bigEndian: Uint8Array };
  #partitions = new Map<string, Map<number, PartitionWindow>>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(stream: string, conversation: ConversationId, topics: readonly string[]) {
    this.#stream = stream;
    this.#conversation = conversation;
    this.#topics = [...topics];
    this.#keys = conversationKeys(conversation);
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
        const partitions = await Promise.all(
          description.partitions.map((p) => this.#readPartition(transport, topic, topicIndex, description.createdAtMicros, p.partition, p.nextOffset, known?.get(p.partition), signal, onError)),
        );
        return { topic, partitions };
      }),
    );
    // nothing above changed the window, so a read that threw left it as it was
    const out: Keyed[] = [];
    for (const { topic, partitions } of updates) {
      if (partitions === undefined) {
        this.#partitions.delete(topic);
        continue;
      }
      const next = new Map<number, PartitionWindow>();
      for (const update of partitions) {
        const w = apply(update);
        next.set(update.partition, w);
        for (let i = w.head; i < w.found.length; i++) out.push(w.found[i] as Keyed);
      }
      this.#partitions.set(topic, next);
    }
    return sortKeyed(out).map((k) => k.message);
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

function apply(update: PartitionUpdate): PartitionWindow {
  const w: PartitionWindow = update.kept ?? { createdAtMicros: update.createdAtMicros, next: 0n, found: [], head: 0 };
  for (const k of update.fresh) w.found.push(k);
  while (w.head < w.found.length && (w.found[w.head] as Keyed).message.id.offset < update.from) w.head++;
  // turns that left the window are skipped by `head`; once they are the majority the list is rebuilt
  if (w.head > 1024 && w.head * 2 > w.found.length) {
    w.found = w.found.slice(w.head);
    w.head = 0;
  }
  w.next = update.tail;
  return w;
}

const caches = new WeakMap<SessionsRuntime, Map<string, TurnWindow>>();

/**
 * The kept read window of `conversation` on `topics` for this sessions factory, shared by every
 * session handle on it, so that each context or turn read continues where the last one stopped.
 */
export function turnWindowFor(runtime: SessionsRuntime, stream: string, conversation: ConversationId, topics: readonly string[]): TurnWindow {
  let cache = caches.get(runtime);
  if (cache === undefined) caches.set(runtime, (cache = new Map()));
  const key = `${stream}\u0000${conversation.toString()}\u0000${topics.join('\u0000')}`;
  let window = cache.get(key);
  if (window !== undefined) {
    // re-inserting marks it most recently used (a Map iterates in insertion order)
    cache.delete(key);
  } else {
    window = new TurnWindow(stream, conversation, topics);
    if (cache.size >= MAX_CACHED_TURN_WINDOWS) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, window);
  return window;
}
