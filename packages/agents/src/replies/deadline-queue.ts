/**
 * Timeouts of many waits on one clock timer. A reply hub under load has dozens of waits pending,
 * each with a timeout that is nearly always cancelled (the reply comes first); a platform timer
 * per wait cost a set and a clear (and their objects) per request. Here the waits sit in a binary
 * min-heap by deadline and one timer is armed for the earliest; when it fires, every wait whose
 * deadline has passed expires and the timer is armed again for the next. A cancelled wait leaves
 * the heap at once (O(log n)), so nothing outlives its wait, and the timer is cancelled when the
 * last wait leaves, so an idle hub holds no timer.
 */
import { startTimer, type Clock } from '../clock/clock.js';

/** Something a {@link DeadlineQueue} times out. */
export interface Timed {
  /** When it expires, in microseconds of the queue's own time line (set by the queue). */
  deadline: number;
  /** Its index in the queue's heap, -1 when not queued (kept by the queue). */
  slot: number;
  /** Called once when its deadline has passed; it has already left the queue. */
  expire(): void;
  /**
   * Called once instead of {@link Timed.expire} when the clock's timer threw as the queue armed
   * it again for this entry: nothing would ever time it out, so it ends now with that error.
   */
  fail(error: unknown): void;
}

/** The timeouts of a set of {@link Timed} entries on one clock, with one timer armed at a time. */
export class DeadlineQueue<T extends Timed> {
  readonly #clock: Clock;
  readonly #heap: T[] = [];
  /** Cancels the armed timer; undefined when none is armed. */
  #cancel: (() => void) | undefined;
  /** The deadline the armed timer fires for (Infinity when none is armed). */
  #armedFor = Infinity;
  /**
   * Counts arms and disarms: a timer fires for the queue only while its count is current. A
   * cancel may come too late to stop a fire already on its way (a timer of 0 ms on a test clock,
   * a clock that only has `sleep` and whose sleep has already resolved), and such a stale fire
   * must not pass for the timer armed since (it would expire that timer's waits early).
   */
  #generation = 0;
  /**
   * The queue's time line: microseconds since `#base` (a clock reading), as a number. Restarted
   * whenever the queue empties, so the numbers stay small and exact even on a clock near 2^64.
   */
  #base = 0n;
  /** The latest time read on that line, to notice a clock that moved backwards. */
  #last = 0;

  /** A queue timing out on `clock`. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Entries queued. */
  get size(): number {
    return this.#heap.length;
  }

  /**
   * Queues `entry` to expire `timeoutMs` milliseconds of the clock from now.
   * @throws what the clock's timer throws (the entry is then not queued).
   */
  add(entry: T, timeoutMs: number): void {
    if (this.#heap.length === 0) {
      this.#base = this.#clock.nowMicros();
      this.#last = 0;
    }
    const deadline = this.#now() + timeoutMs * 1000;
    entry.deadline = deadline;
    if (deadline < this.#armedFor) this.#arm(deadline, timeoutMs);
    const heap = this.#heap;
    entry.slot = heap.length;
    heap.push(entry);
    this.#up(entry.slot);
  }

  /** Takes `entry` out of the queue (its timeout is cancelled); no-op when it is not queued. */
  remove(entry: T): void {
    const at = entry.slot;
    const heap = this.#heap;
    if (at < 0 || heap[at] !== entry) return;
    entry.slot = -1;
    const last = heap.pop() as T;
    if (last !== entry) {
      heap[at] = last;
      last.slot = at;
      this.#down(at);
      this.#up(last.slot);
    }
    if (heap.length === 0) this.#disarm();
  }

  /**
   * Now on the queue's time line. A clock that moved backwards (a test clock set back, or one
   * that wrapped past 2^64) shifts every deadline back as far, so each wait keeps the time it
   * had left.
   */
  #now(): number {
    const now = Number(this.#clock.nowMicros() - this.#base);
    const back = this.#last - now;
    if (back > 0) {
      for (const entry of this.#heap) entry.deadline -= back;
      if (this.#armedFor !== Infinity) this.#armedFor -= back;
    }
    this.#last = now;
    return now;
  }

  #arm(deadline: number, ms: number): void {
    // A timeout too large to add to the clock's time still gets a finite (chained) timer. The new
    // timer is armed before the old one is cancelled: a clock that throws leaves the old armed.
    // A closure per arm (not per wait): arms are rare once waits flow, as a later wait's
    // deadline is later than the armed one.
    const generation = this.#generation + 1;
    const cancel = startTimer(this.#clock, Number.isFinite(ms) ? ms : Number.MAX_VALUE, () => {
      if (generation === this.#generation) this.#fire();
    });
    this.#cancel?.();
    this.#generation = generation;
    this.#cancel = cancel;
    this.#armedFor = deadline;
  }

  #disarm(): void {
    this.#cancel?.();
    this.#generation++;
    this.#cancel = undefined;
    this.#armedFor = Infinity;
  }

  /** The armed timer fired (a stale one never gets here). */
  #fire(): void {
    this.#generation++;
    // Read first: a clock that moved backwards shifts the armed deadline with the others.
    const clockNow = this.#now();
    const armedFor = this.#armedFor;
    this.#cancel = undefined;
    this.#armedFor = Infinity;
    const heap = this.#heap;
    // The timer armed for a deadline says that deadline has come, whatever the clock reads (a
    // clock whose readings and timers disagree must not keep a wait from ever timing out).
    const now = armedFor === Infinity ? clockNow : Math.max(clockNow, armedFor);
    // An entry expiring may make others leave (its owner reacts synchronously): look at the
    // root afresh each time.
    while (heap.length > 0 && (heap[0] as T).deadline <= now) {
      const due = heap[0] as T;
      this.remove(due);
      due.expire();
    }
    // A platform timer may fire a little before the clock reaches the deadline: arm again for
    // what is left, as for the next entry.
    const next = heap[0];
    // Armed already when an entry expiring added another (its owner reacting synchronously), but
    // for that one's deadline, which may be later than the next's. A deadline of Infinity (a
    // timeout too large to add) never comes: nothing to arm for.
    if (next === undefined || next.deadline >= this.#armedFor || next.deadline === Infinity) return;
    try {
      this.#arm(next.deadline, (next.deadline - now) / 1000);
    } catch (error) {
      // Nothing is armed and nothing may ever be added again (a requester waiting for its last
      // reply): every entry left would wait forever. They end with the clock's error instead,
      // as a wait whose timer cannot be armed fails at registration.
      while (heap.length > 0 && (heap[0] as T).deadline !== Infinity) {
        const stranded = heap[0] as T;
        this.remove(stranded);
        stranded.fail(error);
      }
    }
  }

  #up(start: number): void {
    const heap = this.#heap;
    let at = start;
    const entry = heap[at] as T;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = heap[parentAt] as T;
      if (parent.deadline <= entry.deadline) break;
      heap[at] = parent;
      parent.slot = at;
      at = parentAt;
    }
    heap[at] = entry;
    entry.slot = at;
  }

  #down(start: number): void {
    const heap = this.#heap;
    const n = heap.length;
    let at = start;
    const entry = heap[at] as T;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && (heap[right] as T).deadline < (heap[left] as T).deadline ? right : left;
      const smaller = heap[child] as T;
      if (smaller.deadline >= entry.deadline) break;
      heap[at] = smaller;
      smaller.slot = at;
      at = child;
    }
    heap[at] = entry;
    entry.slot = at;
  }
}
