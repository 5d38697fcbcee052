/**
 * The record ids of the replies that answered a wait, so a copy of one (the same signed bytes
 * appended again: a signature does not cover where a record was appended) never answers another.
 * A reply hub asks on every reply that matches a pending wait, so this holds no object per
 * answer: the ids' bytes sit in one ring, and a map from a number drawn from each id's random
 * part to its slot finds them. Objects kept per answer would each survive the young generation
 * and be promoted, which cost a busy requester measurably.
 */
import type { RecordId } from '@agdx/wire';

/** How many answers are remembered; the oldest is forgotten first. */
export const ANSWERED_REPLY_MEMORY = 4_096;

const ID_BYTES = 16;

/**
 * A small integer from an id's last four bytes (random in a ULID): it finds the id's slot. Two
 * ids that share it only make the older one forgotten early, never a false match: the slot's
 * bytes are compared in full.
 */
function keyOf(bytes: Uint8Array, at: number): number {
  // >>> 2 keeps it a small integer, which the map stores without a heap number.
  return (((bytes[at + 12] as number) << 24) | ((bytes[at + 13] as number) << 16) | ((bytes[at + 14] as number) << 8) | (bytes[at + 15] as number)) >>> 2;
}

/** The last {@link ANSWERED_REPLY_MEMORY} record ids that answered a wait. */
export class AnsweredReplies {
  readonly #ring = new Uint8Array(ANSWERED_REPLY_MEMORY * ID_BYTES);
  readonly #slots = new Map<number, number>();
  #next = 0;
  #filled = 0;

  /** True when reply `id` already answered a wait. */
  has(id: RecordId): boolean {
    if (this.#filled === 0) return false;
    const bytes = id.toBytes();
    const slot = this.#slots.get(keyOf(bytes, 0));
    if (slot === undefined) return false;
    const ring = this.#ring;
    const at = slot * ID_BYTES;
    for (let i = 0; i < ID_BYTES; i++) if (ring[at + i] !== bytes[i]) return false;
    return true;
  }

  /** Remembers that reply `id` answered a wait, forgetting the oldest past the memory's size. */
  add(id: RecordId): void {
    const slot = this.#next;
    this.#next = slot + 1 === ANSWERED_REPLY_MEMORY ? 0 : slot + 1;
    const ring = this.#ring;
    const at = slot * ID_BYTES;
    if (this.#filled === ANSWERED_REPLY_MEMORY) {
      const oldKey = keyOf(ring, at);
      if (this.#slots.get(oldKey) === slot) this.#slots.delete(oldKey);
    } else {
      this.#filled++;
    }
    const bytes = id.toBytes();
    ring.set(bytes, at);
    this.#slots.set(keyOf(bytes, 0), slot);
  }
}
