/**
 * A Map that names its oldest entry in O(1), for bounded memories that forget oldest first.
 *
 * Why not the Map's own order (`map.keys().next()` after a delete-and-set)? In V8 a deleted entry
 * stays in the table as a hole until the table is rehashed, and a fresh iterator walks every hole
 * from the start: forgetting oldest first leaves the holes exactly there, so each eviction skips
 * up to about the map's size of them (`pnpm bench map-eviction` measures it). Here the order
 * lives in a queue of keys beside the Map; a key set again is queued again, and the copy it left
 * behind is passed over (once) because its position no longer matches the key's. Exported for
 * the bounded memories of the packages built on this one (`@agdx/bridge-a2a`'s reply index) and
 * for a user's own `ProcessedKeyStore`.
 */

// Compacting once the queue holds more than twice the live keys (plus slack for tiny maps) costs
// O(queue) per at least as many sets and deletes since the last compaction: O(1) amortized.
const SLACK = 16;

/**
 * Keys in the order they were last set (oldest first), each with a value: what a Map gives when
 * every set of a present key is a delete and set, with {@link RecencyMap.oldest} in O(1)
 * amortized whatever was deleted before.
 */
export class RecencyMap<K, V> {
  // Positions as small integers and two parallel arrays, rather than an object per key: measured
  // about 30 bytes less per key for about 20 ns more per eviction (docs/benchmarks.md).
  /** Each kept key's position in the queue: only the copy there is live. */
  readonly #at = new Map<K, number>();
  /** Keys in the order they were set; entries before #head, and stale copies, are passed over. */
  #keys: (K | undefined)[] = [];
  /** The value set with the key at the same position (emptied once that copy is stale). */
  #values: (V | undefined)[] = [];
  #head = 0;

  /** How many keys are kept. */
  get size(): number {
    return this.#at.size;
  }

  /** True when `key` is kept. */
  has(key: K): boolean {
    return this.#at.has(key);
  }

  /** The value of `key`, without changing its place; `undefined` when not kept. */
  get(key: K): V | undefined {
    const at = this.#at.get(key);
    return at === undefined ? undefined : this.#values[at];
  }

  /** Keeps `value` for `key` and makes `key` the newest (also when it was kept already). */
  set(key: K, value: V): void {
    const at = this.#keys.length;
    const was = this.#at.get(key);
    // the old copy goes stale: let go of its value now, its key when the head passes it
    if (was !== undefined) this.#values[was] = undefined;
    this.#at.set(key, at);
    this.#keys.push(key);
    this.#values.push(value);
    if (at >= 2 * this.#at.size + SLACK) this.#compact();
  }

  /** Forgets `key`; true when it was kept. */
  delete(key: K): boolean {
    const at = this.#at.get(key);
    if (at === undefined) return false;
    this.#values[at] = undefined;
    this.#at.delete(key);
    return true;
  }

  /** The oldest kept key (the one set longest ago), `undefined` when none is kept. */
  oldest(): K | undefined {
    const keys = this.#keys;
    while (this.#head < keys.length) {
      const key = keys[this.#head] as K;
      if (this.#at.get(key) === this.#head) return key;
      // a stale copy: drop the reference so a forgotten key is not held
      keys[this.#head] = undefined;
      this.#head++;
    }
    return undefined;
  }

  /** Forgets every key. */
  clear(): void {
    this.#at.clear();
    this.#keys = [];
    this.#values = [];
    this.#head = 0;
  }

  /** Rebuilds the queue with the live copies only, in the same order. */
  #compact(): void {
    const keys: K[] = [];
    const values: V[] = [];
    for (let i = this.#head; i < this.#keys.length; i++) {
      const key = this.#keys[i] as K;
      if (this.#at.get(key) !== i) continue;
      this.#at.set(key, keys.length);
      keys.push(key);
      values.push(this.#values[i] as V);
    }
    this.#keys = keys;
    this.#values = values;
    this.#head = 0;
  }
}
