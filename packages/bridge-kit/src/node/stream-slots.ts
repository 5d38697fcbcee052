/**
 * Concurrent event-stream (SSE) responses per client. Each open stream holds a reply wait and a
 * socket; a client that opens streams without end would hold the bridge's resources, so past
 * the limit it gets 429 instead of another stream.
 */

/** Counts open streams per client key. */
export class StreamSlots {
  readonly #limit: number;
  readonly #open = new Map<string, number>();

  /** `limit` streams per client at most. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** True when `client` may not open another stream now. */
  full(client: string): boolean {
    return (this.#open.get(client) ?? 0) >= this.#limit;
  }

  /** Takes a slot; returns its release function, or undefined when the client is at the limit. */
  acquire(client: string): (() => void) | undefined {
    if (this.full(client)) return undefined;
    this.#open.set(client, (this.#open.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(client) ?? 1) - 1;
      if (left <= 0) this.#open.delete(client);
      else this.#open.set(client, left);
    };
  }
}
