/**
 * Copies of a task's replies. A signature covers a reply's task and record id but not where or
 * when it was appended, so a byte-for-byte copy of an earlier non-terminal reply, appended after a
 * later one, would verify and become the task's latest (a task that moved on would read its old
 * question again). A record id names one reply: the non-terminal replies that counted are
 * remembered by it, and a later record with the same id is a copy that never counts. Terminal
 * copies need nothing: the first terminal wins.
 */
import type { RecordId } from '@agdx/wire';
import type { A2aTask } from './task.js';

/** How many record ids of one task's counted non-terminal replies are remembered (oldest forgotten first). */
export const COUNTED_REPLY_IDS = 8;

/** A task as one reply leaves it, and that reply's record id (absent on a reply without one). */
export interface CountedReply {
  readonly found: A2aTask;
  readonly record: RecordId | undefined;
}

/**
 * A task as a read of its replies leaves it (`undefined`: no reply), and a copy of the record ids
 * of its non-terminal replies that counted by then, so a follower can tell a later copy of one.
 */
export interface TaskReading {
  readonly task: A2aTask | undefined;
  /** `undefined`: none counted, or the read was not asked for them. */
  readonly counted: CountedReplies | undefined;
}

/** The record ids of one task's non-terminal replies that counted, as bytes in a ring. */
export class CountedReplies {
  // 16 bytes per id in one array: an id object costs about five times as much heap, and the
  // index may keep tens of thousands of tasks.
  #bytes: Uint8Array | undefined;
  #count = 0;
  #next = 0;

  /** An empty memory, or a copy of `from`'s. */
  constructor(from?: CountedReplies) {
    const bytes = from === undefined ? undefined : from.#bytes;
    if (from !== undefined && bytes !== undefined) {
      this.#bytes = bytes.slice();
      this.#count = from.#count;
      this.#next = from.#next;
    }
  }

  /** True when `record` is the id of a reply that already counted: the record is a copy. */
  isCopy(record: RecordId | undefined): boolean {
    return record !== undefined && this.#holds(record.toBytes(), 0);
  }

  /** Remembers a reply that counted; past {@link COUNTED_REPLY_IDS} the oldest is forgotten. */
  add(record: RecordId | undefined): void {
    if (record === undefined) return;
    this.#bytes ??= new Uint8Array(COUNTED_REPLY_IDS * 16);
    this.#bytes.set(record.toBytes(), this.#next * 16);
    this.#next = (this.#next + 1) % COUNTED_REPLY_IDS;
    if (this.#count < COUNTED_REPLY_IDS) this.#count++;
  }

  /**
   * True when this memory holds a record id that `other` (`undefined`: none) does not: a reply
   * counted since `other` was copied.
   */
  holdsNewerThan(other: CountedReplies | undefined): boolean {
    const bytes = this.#bytes;
    if (bytes === undefined) return false;
    for (let slot = 0; slot < this.#count; slot++) {
      if (other === undefined || !other.#holds(bytes, slot * 16)) return true;
    }
    return false;
  }

  /** True when the 16 bytes at `at` in `id` are one of the remembered ids. */
  #holds(id: Uint8Array, at: number): boolean {
    const bytes = this.#bytes;
    if (bytes === undefined) return false;
    for (let slot = 0; slot < this.#count; slot++) {
      let same = true;
      for (let i = 0; i < 16 && same; i++) same = bytes[slot * 16 + i] === id[at + i];
      if (same) return true;
    }
    return false;
  }

  /** An independent copy (a read works on copies, so a failed one keeps nothing). */
  clone(): CountedReplies {
    return new CountedReplies(this);
  }
}
