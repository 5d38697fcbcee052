import { InvalidError } from '@agdx/wire';
import type { ProcessedKeyStore } from './processed-key-store.js';
import { RecencyMap } from './recency-map.js';

/** The default window of the in-memory store. */
export const DEFAULT_DEDUP_WINDOW = 10_000;

/**
 * An in-memory processed-key store that remembers the newest `capacity` keys (insertion order;
 * re-adding a key refreshes it). It forgets everything on restart: use
 * {@link LogProcessedKeyStore} when effects must stay exactly-once across restarts.
 */
export class SlidingWindowKeyStore implements ProcessedKeyStore {
  readonly #capacity: number;
  // Not a Set forgetting through `values().next()`: that walks every key forgotten before (see RecencyMap).
  readonly #keys = new RecencyMap<string, true>();

  /** @throws InvalidError unless `capacity` is a safe integer ≥ 1. */
  constructor(capacity: number = DEFAULT_DEDUP_WINDOW) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new InvalidError('the dedup window must be a safe integer of at least 1', { context: { field: 'capacity' } });
    }
    this.#capacity = capacity;
  }

  /** Number of keys remembered. */
  get size(): number {
    return this.#keys.size;
  }

  /** True when `key` is in the window. */
  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Adds `key`, evicting the oldest keys beyond the capacity. */
  add(key: string): void {
    this.#keys.set(key, true);
    while (this.#keys.size > this.#capacity) {
      const oldest = this.#keys.oldest();
      if (oldest === undefined) break;
      this.#keys.delete(oldest);
    }
  }
}
