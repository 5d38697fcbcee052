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

/**
 * The identities of one partition: each key with the offset where it leaves the window, in two
 * parallel arrays (oldest first, consumed from `head`) so a record costs no entry object.
 */
class PartitionWindow {
  readonly keys = new Map<string, bigint>();
  expiries: bigint[] = [];
  order: string[] = [];
  head = 0;
}

/**
 * Identities (record ids, op ids, idempotency keys) met on the log, each remembered while its
 * record is among the newest `span` records of its partition: one met at offset `e` is forgotten
 * when the fold reaches offset `e + span` of that partition. The answer of {@link seen} depends
 * only on offsets, so a fold from the start, an incremental fold and a fold resumed from a
 * snapshot of this window agree record for record. A redelivered copy lands on the partition of
 * its first copy, so each partition is looked up on its own.
 */
export class PositionWindow {
  readonly #span: bigint;
  readonly #onForget: ((key: string) => void) | undefined;
  readonly #partitions = new Map<string, PartitionWindow>();
  #size = 0;

  /**
   * @param span records per partition an identity is remembered for.
   * @param onForget called with each key as it leaves the window, for folds that keep the key elsewhere too.
   */
  constructor(span: number = REDELIVERY_WINDOW, onForget?: (key: string) => void) {
    this.#span = BigInt(span);
    this.#onForget = onForget;
  }

  /** How many keys are held, over every partition. */
  get size(): number {
    return this.#size;
  }

  /** True when `key` is held on any partition. */
  has(key: string): boolean {
    for (const window of this.#partitions.values()) if (window.keys.has(key)) return true;
    return false;
  }

  /**
   * Says whether `key` was met within the window of the record at `offset` of `partition`, and
   * remembers it when it was not. Forgets first what the window has moved past.
   */
  seen(partition: string, offset: bigint, key: string): boolean {
    const window = this.#partitions.get(partition);
    if (window !== undefined) {
      this.#advance(window, offset);
      if (window.keys.has(key)) return true;
    }
    this.#add(window ?? this.#open(partition), offset, key);
    return false;
  }

  /** Remembers `key` as met at `offset` of `partition` (the caller decided it is new there). */
  note(partition: string, offset: bigint, key: string): void {
    this.#note(this.#partitions.get(partition) ?? this.#open(partition), offset, key);
  }

  /** Forgets every key of `partition` met at or below `offset - span`: a copy at `offset` is beyond their window. */
  advance(partition: string, offset: bigint): void {
    const window = this.#partitions.get(partition);
    if (window !== undefined) this.#advance(window, offset);
  }

  #open(partition: string): PartitionWindow {
    const window = new PartitionWindow();
    this.#partitions.set(partition, window);
    return window;
  }

  #note(window: PartitionWindow, offset: bigint, key: string): void {
    // a key noted again (a caller renewing it) belongs to its newer entry, and is counted once
    if (window.keys.has(key)) this.#size--;
    this.#add(window, offset, key);
  }

  /** Adds the entry of a key `window` does not hold. */
  #add(window: PartitionWindow, offset: bigint, key: string): void {
    const expiry = offset + this.#span;
    window.keys.set(key, expiry);
    window.expiries.push(expiry);
    window.order.push(key);
    this.#size++;
  }

  #advance(window: PartitionWindow, offset: bigint): void {
    const { expiries, order } = window;
    let head = window.head;
    while (head < expiries.length && (expiries[head] as bigint) <= offset) {
      const key = order[head] as string;
      if (window.keys.get(key) === expiries[head]) {
        window.keys.delete(key);
        this.#size--;
        this.#onForget?.(key);
      }
      head++;
    }
    window.head = head;
    // the consumed front is cut off once it is most of the arrays, so each entry is copied at most once or twice
    if (head > 1024 && head * 2 > expiries.length) {
      window.expiries = expiries.slice(head);
      window.order = order.slice(head);
      window.head = 0;
    }
  }

  /** The held entries of every partition, oldest first (what a snapshot saves). */
  *partitions(): IterableIterator<[string, readonly WindowEntry[]]> {
    for (const [partition, window] of this.#partitions) {
      const held: WindowEntry[] = [];
      for (let i = window.head; i < window.order.length; i++) {
        const key = window.order[i] as string;
        const expiry = window.expiries[i] as bigint;
        if (window.keys.get(key) === expiry) held.push({ offset: expiry - this.#span, key });
      }
      if (held.length > 0) yield [partition, held];
    }
  }
}
