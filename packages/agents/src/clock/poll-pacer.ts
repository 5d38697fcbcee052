/**
 * Paces a reader on a log that has no blocking read (Apache Iggy): a wait there is a poll, and
 * a poll that sleeps a fixed back-off before looking again adds that sleep to every reply. The
 * pacer reads again at once while records flow or a reply is expected (a short "hot" window),
 * then backs off exponentially while idle, so an idle reader costs a few small requests a
 * second and a busy one adds no sleep at all.
 */

/** The pacing of one reader, in milliseconds. */
export interface PollPacing {
  /** After activity, empty reads are retried at once for this long... */
  readonly hotMs: number;
  /**
   * ...but at most this many times in a row: on a busy machine a round trip can take a good part
   * of the window, and back-to-back empty reads take CPU from the server that must answer.
   */
  readonly hotReads: number;
  /** First pause once the hot window has passed. */
  readonly minMs: number;
  /** Largest pause (the idle cost is about one read per `maxMs`). */
  readonly maxMs: number;
}

/**
 * Pacing of reply readers, which run only while waits are pending (the hot window covers a
 * loopback round trip several times over; a slow reply is seen within 50 ms). A reply wait
 * re-heats its reader once the request is on the log (`PendingReply.sent`), so the hot reads are
 * spent when the answer can appear. 32 hot reads instead of 4 were measured slower on a saturated
 * machine (p50 8.2 ms against 3.9 ms for the waitFor baseline, load average 22): back-to-back
 * empty reads take CPU from the server and the agent that must produce the answer.
 */
export const DEFAULT_POLL_PACING: PollPacing = { hotMs: 5, hotReads: 4, minMs: 1, maxMs: 50 };

/** The pause schedule of one polling reader. */
export class PollPacer {
  readonly #pacing: PollPacing;
  #hotUntil = -Infinity;
  #hotLeft = 0;
  #pause: number;
  #wake: (() => void) | undefined;

  /** A pacer that starts idle (its first empty read already pauses `minMs`). */
  constructor(pacing: PollPacing = DEFAULT_POLL_PACING) {
    this.#pacing = pacing;
    this.#pause = pacing.minMs;
  }

  /**
   * Records arrived, or a reply is about to be expected: read again at once, stay hot for
   * `hotMs`, and cut short a pause in progress.
   */
  active(): void {
    this.#hotUntil = performance.now() + this.#pacing.hotMs;
    this.#hotLeft = this.#pacing.hotReads;
    this.#pause = this.#pacing.minMs;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Called after an empty read: resolves when the next read is due (at once inside the hot
   * window, for up to `hotReads` empty reads), when {@link active} is called, or when `signal` fires. Never rejects.
   */
  idle(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.resolve();
    if (this.#hotLeft > 0 && performance.now() < this.#hotUntil) {
      this.#hotLeft--;
      return Promise.resolve();
    }
    const ms = this.#pause;
    this.#pause = Math.min(this.#pacing.maxMs, this.#pause * 2);
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }
}
