/**
 * Keeps a busy agent from starving the event loop. On an in-process log every read and append
 * settles as a microtask, so an agent with a steady stream of work would never let timers run:
 * reply timeouts, heartbeats and linger flushes would all stall. Loops call {@link maybeYield}
 * after each unit of work; once a time slice is used up it waits for one macrotask turn.
 */

import { afterMacrotask } from './after-burst.js';

const SLICE_MS = 10;

const macrotask = (): Promise<void> => new Promise((resolve) => afterMacrotask(resolve));

/** Time-sliced yielding for one loop. */
export class CooperativeYield {
  #sliceStart: number = performance.now();

  /**
   * `undefined` while the slice lasts (nothing to await: loops call this once per record); after
   * it, a promise that resolves once the event loop has turned.
   */
  maybeYield(): Promise<void> | undefined {
    if (performance.now() - this.#sliceStart < SLICE_MS) return undefined;
    return this.#yield();
  }

  async #yield(): Promise<void> {
    await macrotask();
    this.#sliceStart = performance.now();
  }
}
