/**
 * A one-entry cache from encoded bytes to an immutable decoded value. Consecutive records of one
 * stream repeat the same conversation, correlation, channel and source, so the decoder can hand back
 * the previous (immutable) object instead of allocating a new one.
 * @internal
 */
export class LastValueCache<T> {
  #bytes: Uint8Array = new Uint8Array(0);
  #value: T | undefined = undefined;

  /** The cached value when `len` bytes at `start` equal the cached bytes. */
  get(buf: Uint8Array, start: number, len: number): T | undefined {
    const b = this.#bytes;
    if (this.#value === undefined || b.length !== len) return undefined;
    for (let i = 0; i < len; i++) if (b[i] !== buf[start + i]) return undefined;
    return this.#value;
  }

  /** Remembers `value` for a copy of these bytes. */
  set(buf: Uint8Array, start: number, len: number, value: T): void {
    this.#bytes = buf.slice(start, start + len);
    this.#value = value;
  }
}
