/**
 * Processed-key storage for exactly-once effects (seed 000: "Exactly-once effects need an
 * application idempotency key and durable processed-key storage. They are not a delivery mode").
 * Delivery stays at least once; the runtime skips a redelivered record whose key was already
 * processed, and records the key only after the handler succeeded.
 */

/** Where an agent remembers which idempotency keys it already handled. */
export interface ProcessedKeyStore {
  /** True when `key` was recorded as processed. */
  has(key: string): boolean | Promise<boolean>;
  /**
   * Records `key` as processed. The runtime awaits this before it commits the record's offset,
   * so a durable store must have persisted the key when the promise resolves.
   */
  add(key: string): void | Promise<void>;
}

/**
 * The key a runtime stores for an idempotency key: `"<agent>\u001f<key>"`, so agents sharing a
 * store never suppress each other's work (the 0.1.1 layout).
 */
export function processedKey(agent: string | undefined, idempotencyKey: string): string {
  return agent === undefined ? idempotencyKey : `${agent}\u001f${idempotencyKey}`;
}
