/**
 * How far apart, in records of one partition, a record and its redelivered copy may be for the
 * folds to recognise the copy. A producer that retries an append writes the same record (the same
 * record id, op id or idempotency key) again on the same partition, after whatever was appended
 * there in between; the folds remember the identities met in the newest this many records of each
 * partition, so their memory follows the log's positions rather than its age or the number of
 * sessions. The same bound as the context read window, so one number describes both.
 */
export const REDELIVERY_WINDOW = 10_000;

/** One remembered identity: where it was first met. */
export interface WindowEntry {
  readonly offset: bigint;
  readonly key: string;
}

/** The entries of one partition, oldest first, with the index of the first still held. */
interface PartitionQueue {
  entries: WindowEntry[];
  head: number;
}

/**
 * Identities (record ids, op ids, idempotency keys) met on the log, each remembered while its
 * record is among the newest `span` records of its partition: one met at offset `e` is forgotten
 * when the fold reaches offset `e + span` of that partition. The answer of {@link seen} depends
 * only on offsets, so a fold from the start, an incremental fold and a fold resumed from a
 * snapshot of this window agree record for record.
 */
export class PositionWindow {
  readonly #span: bigint;
  readonly #onForget: ((key: string) => void) | undefined;
  /** Each held key and the offset of the entry that holds it. */
  readonly #keys = new Map<string, bigint>();
  readonly #queues = new Map<string, PartitionQueue>();

  /**
   * @param span records per partition an identity is remembered for.
   * @param onForget called with each key as it leaves the window, for folds that keep the key elsewhere too.
   */
  constructor(span: number = REDELIVERY_WINDOW, onForget?: (key: string) => void) {
    this.#span = BigInt(span);
    this.#onForget = onForget;
  }

  /** How many keys are held. */
  get size(): number {
    return this.#keys.size;
  }

  /** True when `key` is held. */
  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /**
   * Says whether `key` was met within the window of the record at `offset` of `partition`, and
   * remembers it when it was not. Forgets first what the window has moved past.
   */
  seen(partition: string, offset: bigint, key: string): boolean {
    this.advance(partition, offset);
    if (this.#keys.has(key)) return true;
    this.note(partition, offset, key);
    return false;
  }

  /** Remembers `key` as met at `offset` of `partition` (the caller decided it is new). */
  note(partition: string, offset: bigint, key: string): void {
    let queue = this.#queues.get(partition);
    if (queue === undefined) this.#queues.set(partition, (queue = { entries: [], head: 0 }));
    queue.entries.push({ offset, key });
    this.#keys.set(key, offset);
  }

  /** Forgets every key of `partition` met at or below `offset - span`: a copy at `offset` is beyond their window. */
  advance(partition: string, offset: bigint): void {
    const queue = this.#queues.get(partition);
    if (queue === undefined) return;
    const limit = offset - this.#span;
    const { entries } = queue;
    while (queue.head < entries.length) {
      const entry = entries[queue.head] as WindowEntry;
      if (entry.offset > limit) break;
      queue.head++;
      // a key noted again later (after it had left, or on another partition) belongs to its newer entry
      if (this.#keys.get(entry.key) === entry.offset) {
        this.#keys.delete(entry.key);
        this.#onForget?.(entry.key);
      }
    }
    // the consumed front is cut off once it is most of the array, so each entry is copied at most once or twice
    if (queue.head === entries.length) this.#queues.delete(partition);
    else if (queue.head > 1024 && queue.head * 2 > entries.length) {
      queue.entries = entries.slice(queue.head);
      queue.head = 0;
    }
  }

  /** The held entries of every partition, oldest first (what a snapshot saves). */
  *partitions(): IterableIterator<[string, readonly WindowEntry[]]> {
    for (const [partition, queue] of this.#queues) {
      const held = queue.entries.slice(queue.head).filter((e) => this.#keys.get(e.key) === e.offset);
      if (held.length > 0) yield [partition, held];
    }
  }
}
