import { idEqualsBytes, type MachineId } from '../ids/machine-id.js';
import type { AgentId } from '../ids/agent-id.js';

/**
 * One-entry caches from encoded bytes to an immutable decoded value. Consecutive records of one
 * stream repeat the same conversation, correlation, channel and source, so the decoder can hand back
 * the previous (immutable) object instead of allocating a new one. Neither cache copies the input:
 * the comparison runs against what the cached value already holds (an id's words) or its text,
 * so a miss costs nothing beyond the decode it replaces.
 * @internal
 */
export class LastIdCache<T extends MachineId> {
  #value: T | undefined = undefined;

  /** The cached id when the `len` bytes at `start` equal its bytes. */
  get(buf: Uint8Array, start: number, len: number): T | undefined {
    const value = this.#value;
    if (value === undefined || len !== 16) return undefined;
    return idEqualsBytes(value, buf, start) ? value : undefined;
  }

  /** Remembers `value` (an id never changes its bytes, so nothing is copied). */
  set(value: T): void {
    this.#value = value;
  }
}

/** {@link LastIdCache} for agent ids: compares the input bytes with the cached ASCII text. @internal */
export class LastAgentIdCache {
  #value: AgentId | undefined = undefined;

  /** The cached id when the `len` bytes at `start` spell its text (ASCII text only; else a miss). */
  get(buf: Uint8Array, start: number, len: number): AgentId | undefined {
    const value = this.#value;
    if (value === undefined) return undefined;
    const text = value.value;
    if (text.length !== len) return undefined;
    // A byte >= 0x80 never equals a char code of ASCII text, and for non-ASCII text the lengths in
    // bytes and UTF-16 units can agree by accident, so any char >= 0x80 counts as a miss.
    for (let i = 0; i < len; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80 || c !== buf[start + i]) return undefined;
    }
    return value;
  }

  /** Remembers `value`. */
  set(value: AgentId): void {
    this.#value = value;
  }
}
