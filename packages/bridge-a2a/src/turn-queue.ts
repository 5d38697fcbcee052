/**
 * A first-come, first-served queue of async work that runs one piece at a time, where a piece
 * still waiting for its turn leaves the queue the moment its caller's signal aborts.
 */

import { CancelledError } from '@agdx/agents';

/** One piece of work waiting for its turn. */
interface Turn {
  readonly start: () => void;
}

/**
 * Runs work one piece at a time, in the order it was asked for. A piece whose signal aborts
 * while it waits is rejected with `CancelledError` at once and never runs, so the pieces behind
 * it move up: a caller that went away (an HTTP client that disconnected) neither waits for nor
 * delays anyone. A piece that has started is not interrupted here; its own reads watch the signal.
 */
export class TurnQueue {
  #busy = false;
  /** Waiting turns; a Set iterates in insertion order (FIFO) and drops an aborted turn in O(1). */
  readonly #waiting = new Set<Turn>();

  /**
   * Runs `work` once every piece asked for before it has settled.
   * @param signal when it aborts before `work` starts, the call rejects with `CancelledError`
   *   (its `cause` is the signal's reason) and `work` never runs.
   */
  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // Already gone: it would only start reads that fail, so it costs nothing instead.
    if (signal?.aborted === true) return Promise.reject(cancelled(signal));
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        // Only a turn still waiting leaves; one that started finishes as its reads decide.
        if (this.#waiting.delete(turn)) reject(cancelled(signal));
      };
      const turn: Turn = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#busy = true;
          // A microtask, as before: work that throws synchronously rejects this call, not run().
          Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => this.#next());
        },
      };
      if (!this.#busy) {
        turn.start();
        return;
      }
      this.#waiting.add(turn);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #next(): void {
    this.#busy = false;
    const [turn] = this.#waiting;
    if (turn === undefined) return;
    this.#waiting.delete(turn);
    turn.start();
  }
}

function cancelled(signal: AbortSignal | undefined): CancelledError {
  return new CancelledError('the call was aborted while it waited for its turn', { cause: signal?.reason });
}
