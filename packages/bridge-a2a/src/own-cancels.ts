/**
 * The unsigned CancelTask records a bridge appended itself. Under a verifier an unsigned record
 * proves nothing about its author, except when it sits at the exact position the bridge's own
 * append returned; remembering those positions lets GetTask trust them and nothing else.
 */

import { RecencyMap } from '@agdx/agents';

/**
 * How many of its own unsigned CancelTask records a bridge remembers (by position) so that GetTask
 * can trust them under a verifier; older ones, and those of other bridge instances, are not.
 */
export const OWN_CANCEL_MEMORY: number = 10_000;

/** The newest {@link OWN_CANCEL_MEMORY} unsigned cancels a bridge appended: task id → position. */
export class OwnCancels {
  // Forgetting through a Map's own order (`keys().next()`) would walk every cancel forgotten before.
  readonly #positions = new RecencyMap<string, string>();

  /** Remembers the position of the cancel of `task`, forgetting the oldest beyond the limit. */
  remember(task: string, position: string): void {
    this.#positions.set(task, position);
    if (this.#positions.size > OWN_CANCEL_MEMORY) {
      const oldest = this.#positions.oldest();
      if (oldest !== undefined) this.#positions.delete(oldest);
    }
  }

  /** The remembered position of the cancel of `task`. */
  get(task: string): string | undefined {
    return this.#positions.get(task);
  }
}

/** One string per log position (stream, topic, partition, offset). */
export function positionKey(position: { readonly stream: string; readonly topic: string; readonly partition: number; readonly offset: bigint }): string {
  return `${position.stream}\u0000${position.topic}\u0000${position.partition}\u0000${position.offset}`;
}
