import { idHasWords, type MachineId } from '../ids/machine-id.js';
import type { AgentId } from '../ids/agent-id.js';

/**
 * One-entry caches from encoded bytes to an immutable decoded value. Consecutive records of one
 * stream repeat the same conversation, correlation, channel and source, so the decoder can hand back
 * the previous (immutable) object instead of allocating a new one. Neither cache copies the input:
 * the comparison runs against what the cached value already holds (an id's words, which the
 * decoder reads once and builds a new id from on a miss) or its text.
 * @internal
 */
export class LastIdCache<T extends MachineId> {
  #value: T | undefined = undefined;

  /** The cached id when its value is the four big-endian words given. */
  get(w0: number, w1: number, w2: number, w3: number): T | undefined {
    const value = this.#value;
    return value !== undefined && idHasWords(value, w0, w1, w2, w3) ? value : undefined;
  }

  /** Remembers `value` (an id never changes its bytes, so nothing is copied). */
  set(value: T): void {
    this.#value = value;
  }
}

/** {@link LastIdCache} for agent ids: compares the input bytes with the cached ASCII text. @internal */
export class LastAgentIdCache {
  #value: AgentId | undefined = undefined;

  /** After {@link LastAgentIdCache.scan} missed: whether every byte it scanned was printable ASCII. */
  printable = false;

  /**
   * The cache comparison and the printable-ASCII check (0x20..0x7e) in one pass over the `len`
   * bytes at `start`: the cached id when they spell its text; else `undefined`, with
   * {@link LastAgentIdCache.printable} telling whether the bytes may be adopted as text unchecked.
   */
  scan(buf: Uint8Array, start: number, len: number): AgentId | undefined {
    const value = this.#value;
    const text = value?.value;
    let same = text !== undefined && text.length === len;
    let printable = true;
    for (let i = 0; i < len; i++) {
      const b = buf[start + i] as number;
      if (b < 0x20 || b > 0x7e) {
        // Not printable ASCII, so never equal to a char of the cached text: a byte >= 0x80 never
        // equals a char code, and non-ASCII text whose byte and UTF-16 lengths agree by accident
        // must not match either.
        printable = false;
        same = false;
      } else if (same && (text as string).charCodeAt(i) !== b) {
        same = false;
      }
    }
    this.printable = printable;
    return same ? value : undefined;
  }

  /** Remembers `value`. */
  set(value: AgentId): void {
    this.#value = value;
  }
}
