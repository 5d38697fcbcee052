/**
 * Bounded, abortable waits that are woken by the writer instead of polling. A waiter sits in
 * one or more wake sets; whoever changes the state calls {@link wakeAll} on the affected set,
 * and the waiter re-checks its condition. No timer runs per wait: a connection's waits share
 * one timer, armed for the earliest deadline (see {@link WaitRegistry}).
 */

import { watchAbort } from './abort-watch.js';
import { CancelledError, type TransportError } from './errors.js';

/** One pending wait. */
export interface Waiter {
  /** True when the awaited condition holds. */
  readonly ready: () => boolean;
  /** Settles the wait with `true`, `false` or an error, and unregisters it everywhere. */
  readonly settle: (outcome: boolean | TransportError) => void;
}

/** Wakes every waiter of a set whose condition now holds. */
export function wakeAll(set: Set<Waiter>): void {
  for (const waiter of set) if (waiter.ready()) waiter.settle(true);
}

/**
 * The pending waits of one connection, and their deadlines. Almost every wait is settled by a
 * writer long before its timeout (a reader's 30 s wait typically ends within microseconds), so a
 * `setTimeout` and `clearTimeout` per wait were pure overhead on the hot path. Instead the
 * deadlines sit in a binary min-heap (removal by index, so a settled wait leaves at once and the
 * heap never holds more than the pending waits) and ONE timer is armed for the earliest of them.
 * Settling the earliest wait does not re-arm: the timer fires at the old deadline, finds nothing
 * due and re-arms for the new earliest, so the lateness of a timeout is the timer's own and a
 * wait never times out early. When the last wait settles the timer stays armed but stops holding
 * the process open (`unref`, where the platform has it; elsewhere it is cleared): a reader that
 * waits again soon, with a later deadline, then needs no timer call at all. Time is read from `performance.now()`, the clock the timer uses
 * (and the one test fake timers replace together with `setTimeout`).
 */
export class WaitRegistry {
  readonly #heap: PendingWait[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer is armed for (`Infinity` when none is armed). */
  #armedFor = Infinity;
  /** False while the armed timer was released by {@link WaitRegistry.remove} (no wait pending). */
  #holding = false;

  /** Number of pending waits. */
  get size(): number {
    return this.#heap.length;
  }

  /** Settles every pending wait with `outcome` (for example when the connection closes). */
  settleAll(outcome: boolean | TransportError): void {
    for (const wait of [...this.#heap]) wait.settle(outcome);
  }

  /** @internal Adds a wait to the heap, arming the timer when it is the new earliest deadline. */
  add(wait: PendingWait): void {
    const heap = this.#heap;
    wait.index = heap.length;
    heap.push(wait);
    this.#up(wait.index);
    if (wait.deadline < this.#armedFor) this.#arm(wait.deadline);
    else if (!this.#holding) {
      // The timer armed for an earlier wait fires first and re-arms for this one.
      this.#holding = true;
      (this.#timer as { ref?: () => void } | undefined)?.ref?.();
    }
  }

  /** @internal Removes a settled wait from the heap. */
  remove(wait: PendingWait): void {
    const heap = this.#heap;
    const at = wait.index;
    if (at < 0) return;
    wait.index = -1;
    const last = heap.pop() as PendingWait;
    if (at < heap.length) {
      heap[at] = last;
      last.index = at;
      this.#down(at);
      this.#up(last.index);
    }
    if (heap.length === 0 && this.#holding) {
      this.#holding = false;
      const timer = this.#timer as { unref?: () => void } | undefined;
      if (typeof timer?.unref === 'function') timer.unref();
      else this.#disarm();
    }
  }

  // Where a timer cannot be released (browsers, Deno, workers: `setTimeout` returns a number), an
  // armed timer would keep the event loop (or a Deno process) alive for up to the wait's timeout.
  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  #arm(deadline: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#holding = true;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(deadline - performance.now())));
  }

  /** The timer fired: settles every wait that is due, then re-arms for the next deadline. */
  #expire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#holding = false;
    const now = performance.now();
    // Bounded by the pending waits: each turn removes the top.
    for (let n = this.#heap.length; n > 0; n--) {
      const top = this.#heap[0];
      if (top === undefined || top.deadline > now) break;
      top.settle(top.ready());
    }
    const next = this.#heap[0];
    if (next !== undefined) this.#arm(next.deadline);
  }

  #up(at: number): void {
    const heap = this.#heap;
    const wait = heap[at] as PendingWait;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = heap[parentAt] as PendingWait;
      if (parent.deadline <= wait.deadline) break;
      heap[at] = parent;
      parent.index = at;
      at = parentAt;
    }
    heap[at] = wait;
    wait.index = at;
  }

  #down(at: number): void {
    const heap = this.#heap;
    const wait = heap[at] as PendingWait;
    const length = heap.length;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= length) break;
      const right = child + 1;
      if (right < length && (heap[right] as PendingWait).deadline < (heap[child] as PendingWait).deadline) child = right;
      const smaller = heap[child] as PendingWait;
      if (smaller.deadline >= wait.deadline) break;
      heap[at] = smaller;
      smaller.index = at;
      at = child;
    }
    heap[at] = wait;
    wait.index = at;
  }
}

/** One wait of {@link waitUntil}: an object rather than closures, since every wait of a busy reader makes one. */
class PendingWait implements Waiter {
  /** Position in the registry's heap; -1 once settled. */
  index = -1;
  readonly deadline: number;
  readonly ready: () => boolean;
  readonly #sets: readonly Set<Waiter>[];
  readonly #registry: WaitRegistry;
  readonly #resolve: (value: boolean) => void;
  readonly #reject: (error: TransportError) => void;
  #unwatch: (() => void) | undefined;
  #settled = false;

  constructor(
    ready: () => boolean,
    sets: readonly Set<Waiter>[],
    registry: WaitRegistry,
    deadline: number,
    resolve: (value: boolean) => void,
    reject: (error: TransportError) => void,
  ) {
    this.ready = ready;
    this.#sets = sets;
    this.#registry = registry;
    this.deadline = deadline;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** Registers the wait everywhere; `signal` aborts it. */
  start(signal: AbortSignal | undefined): void {
    for (const set of this.#sets) set.add(this);
    this.#registry.add(this);
    this.#unwatch = watchAbort(signal, () => this.settle(new CancelledError('the wait was aborted', { cause: signal?.reason })));
  }

  settle(outcome: boolean | TransportError): void {
    if (this.#settled) return;
    this.#settled = true;
    for (const set of this.#sets) set.delete(this);
    this.#registry.remove(this);
    this.#unwatch?.();
    if (typeof outcome === 'boolean') this.#resolve(outcome);
    else this.#reject(outcome);
  }
}

/**
 * Waits until `ready()` holds (`true`), `timeoutMs` passes (`false`), the signal fires
 * (`CancelledError`) or the owner settles it with an error (for example on close).
 * The waiter is registered in every set of `sets` and in `registry`, and removed from all on
 * settlement.
 */
export function waitUntil(
  ready: () => boolean,
  sets: readonly Set<Waiter>[],
  registry: WaitRegistry,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (ready()) return Promise.resolve(true);
  if (timeoutMs === 0) return Promise.resolve(false);
  const deadline = performance.now() + timeoutMs;
  return new Promise<boolean>((resolve, reject) => {
    new PendingWait(ready, sets, registry, deadline, resolve, reject).start(signal);
  });
}
