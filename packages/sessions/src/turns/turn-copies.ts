import { CONTEXT_READ_WINDOW, type Keyed } from './read-turns.js';

/**
 * Recognises copies of a turn in read order (a turn's identity is its envelope's record id; a
 * plain turn, what `session.append` writes, carries none and is always taken): the first turn with an identity is taken, a later
 * one with the same identity is not. It remembers the identities of the newest
 * {@link CONTEXT_READ_WINDOW} identified turns it took (a ring), so a read costs one set lookup
 * per turn and its memory stays bounded however long the range; a copy further behind its first
 * than that many identified turns is taken again.
 * @internal
 */
export class FirstCopies {
  readonly #seen = new Set<string>();
  readonly #ring: string[] = [];
  #oldest = 0;

  /** True when the turn is taken: it has no identity, or none of the remembered turns had its identity. */
  take(identity: string | undefined): boolean {
    if (identity === undefined) return true;
    if (this.#seen.has(identity)) return false;
    if (this.#ring.length < CONTEXT_READ_WINDOW) {
      this.#ring.push(identity);
    } else {
      this.#seen.delete(this.#ring[this.#oldest] as string);
      this.#ring[this.#oldest] = identity;
      this.#oldest = (this.#oldest + 1) % CONTEXT_READ_WINDOW;
    }
    this.#seen.add(identity);
    return true;
  }
}

/** The turns of `sorted` (in read order) without the later copies of a turn, first position wins. @internal */
export function firstCopies(sorted: readonly Keyed[]): Keyed[] {
  const copies = new FirstCopies();
  const out: Keyed[] = [];
  for (const k of sorted) if (copies.take(k.identity)) out.push(k);
  return out;
}
