/**
 * A Map that names its oldest entry in O(1), for bounded memories that forget oldest first.
 *
 * Why not the Map's own order (`map.keys().next()` after a delete-and-set)? In V8 a deleted entry
 * stays in the table as a hole until the table is rehashed, and a fresh iterator walks every hole
 * from the start: forgetting oldest first leaves the holes exactly there, so each eviction skips
 * up to about the map's size of them (`pnpm bench map-eviction` measures it). Here the order
 * lives in a queue of keys beside the Map; a key set again is queued again, and the copy it left
 * behind is passed over (once) because its position no longer matches the key's. The same class
 * is internal to `@agdx/bridge-a2a` and the dev server; a package imports only another's public
 * entry, so each keeps its own.
 */

interface Slot<K, V> {
  readonly key: K;
  value: V;
  /** Where the key's live copy sits in the queue; -1 once the key is forgotten. */
  at: number;
}

// Compacting once the queue holds more than twice the live keys (plus slack for tiny maps) costs
// O(queue) per at least as many sets and deletes since the last compaction: O(1) amortized.
const SLACK = 16;

/**
 * Keys in the order they were last set (oldest first), each with a value: what a Map gives when
 * every set of a present key is a delete and set, with {@link RecencyMap.oldest} in O(1)
 * amortized whatever was deleted before.
 */
export class RecencyMap<K, V> {
  readonly #slots = new Map<K, Slot<K, V>>();
  /**
   * The slots in the order their keys were set: a slot appears again each time its key is set,
   * and only the copy at its `at` is live. Entries before #head were passed over.
   */
  #queue: (Slot<K, V> | undefined)[] = [];
  #head = 0;

  /** How many keys are kept. */
  get size(): number {
    return this.#slots.size;
  }

  /** True when `key` is kept. */
  has(key: K): boolean {
    return this.#slots.has(key);
  }

  /** The value of `key`, without changing its place; `undefined` when not kept. */
  get(key: K): V | undefined {
    return this.#slots.get(key)?.value;
  }

  /** Keeps `value` for `key` and makes `key` the newest (also when it was kept already). */
  set(key: K, value: V): void {
    const at = this.#queue.length;
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = { key, value, at };
      this.#slots.set(key, slot);
    } else {
      slot.value = value;
      slot.at = at;
    }
    this.#queue.push(slot);
    if (at >= 2 * this.#slots.size + SLACK) this.#compact();
  }

  /** Forgets `key`; true when it was kept. */
  delete(key: K): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    slot.at = -1;
    this.#slots.delete(key);
    return true;
  }

  /** The oldest kept key (the one set longest ago), `undefined` when none is kept. */
  oldest(): K | undefined {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const slot = queue[this.#head] as Slot<K, V>;
      if (slot.at === this.#head) return slot.key;
      // a stale copy: drop the reference so a forgotten key and its value are not held
      queue[this.#head] = undefined;
      this.#head++;
    }
    return undefined;
  }

  /** Forgets every key. */
  clear(): void {
    for (const slot of this.#slots.values()) slot.at = -1;
    this.#slots.clear();
    this.#queue = [];
    this.#head = 0;
  }

  /** Rebuilds the queue with the live copies only, in the same order. */
  #compact(): void {
    const queue = this.#queue;
    const live: Slot<K, V>[] = [];
    for (let i = this.#head; i < queue.length; i++) {
      const slot = queue[i] as Slot<K, V>;
      if (slot.at !== i) continue;
      slot.at = live.length;
      live.push(slot);
    }
    this.#queue = live;
    this.#head = 0;
  }
}
