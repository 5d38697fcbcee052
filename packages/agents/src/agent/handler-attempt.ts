/**
 * One handler attempt's life: its `AbortSignal` (`ctx.signal`), its deadline (the earlier of the
 * agent's `handlerTimeout` and the command's own `deadline_micros`), and whether it may still
 * have effects. An attempt ends abnormally when its deadline passes (a `TimeoutError` saying
 * which one), when the agent hard-stops, or when the partition's lease is lost (both a
 * `CancelledError`); from then on the context refuses its answers with that error, so a handler
 * that ignored the signal cannot append as if its handling had succeeded.
 *
 * The signal is made only when a handler asks for it (most never do), and with neither a timeout
 * nor a command deadline nothing is armed or listened to: the plain path costs one small object
 * per attempt.
 */
import type { Clock } from '../clock/clock.js';
import { startTimer } from '../clock/clock.js';
import { CancelledError, TimeoutError } from '../errors.js';
import type { RecordAddress } from './log-position.js';

/** What ends attempts from outside, shared by all attempts of one record. */
export interface AttemptBounds {
  /** The agent's clock: the deadline is measured on it (a TestClock drives it in tests). */
  readonly clock: Clock;
  /** The longest an attempt may run, in ms; undefined: no timeout. */
  readonly timeoutMs: number | undefined;
  /** The command's own deadline (`deadline_micros`, epoch µs on the agent's clock); undefined: none. */
  readonly deadlineMicros: bigint | undefined;
  /** Aborts on the agent's hard stop (`abort()`, or `shutdown()` past its grace). */
  readonly stop: AbortSignal;
  /** Aborts when the partition's lease is lost (a rebalance gave it away); undefined when not leased (a drained parked record). */
  readonly lease: AbortSignal | undefined;
  /** The handled record, named in the errors. */
  readonly address: RecordAddress;
}

/** Whether a record's handler already answered its request, over all its attempts. */
export interface AnswerMark {
  /** A response or error for the handled correlation was issued. */
  answered: boolean;
}

/** One attempt of one record's handler. */
export class HandlerAttempt {
  readonly #bounds: AttemptBounds;
  readonly #attempt: number;
  readonly #mark: AnswerMark;
  #controller: AbortController | undefined;
  #ended: Error | undefined;
  #timedOut = false;
  #deadlinePassed = false;
  #settled = false;
  #cancelTimer: (() => void) | undefined;
  #onExpired: ((reason: Error) => void) | undefined;
  #unlink: (() => void) | undefined;

  /** Attempt `attempt` (0-based) within `bounds`; `mark` is shared by the record's attempts. */
  constructor(bounds: AttemptBounds, attempt: number, mark: AnswerMark) {
    this.#bounds = bounds;
    this.#attempt = attempt;
    this.#mark = mark;
  }

  /** The attempt's signal: aborts (with the reason {@link HandlerAttempt.refusal} gives) when the attempt ends abnormally. */
  get signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    const reason = this.refusal();
    if (reason !== undefined) controller.abort(reason);
    else if (!this.#settled) this.#link();
    return controller.signal;
  }

  /** The attempt, 0 for the first. */
  get number(): number {
    return this.#attempt;
  }

  /** True once the attempt's deadline (the timeout or the command's own) passed before the handler settled. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** True when the deadline that ended the attempt was the command's own (no retry can start before it then). */
  get deadlinePassed(): boolean {
    return this.#deadlinePassed;
  }

  /** Why this attempt may have no more effects (timed out, stopped, lease lost), or undefined while it may. */
  refusal(): Error | undefined {
    if (this.#ended !== undefined) return this.#ended;
    const b = this.#bounds;
    if (b.stop.aborted) return this.#end(new CancelledError('the agent stopped while the handler ran', { context: { ...b.address, attempt: this.#attempt } }));
    if (b.lease?.aborted === true) return this.#end(new CancelledError('the partition was reassigned while the handler ran; its new owner handles the record', { context: { ...b.address, attempt: this.#attempt } }));
    return undefined;
  }

  /** The reason when the attempt was cut short by a hard stop or a lost lease (not a timeout): the record is not this agent's to finish. */
  abandoned(): Error | undefined {
    const reason = this.refusal();
    return reason === undefined || this.#timedOut ? undefined : reason;
  }

  /** Notes that the handler issued a response or error answering the handled request. */
  markAnswered(): void {
    this.#mark.answered = true;
  }

  /**
   * The handler's promise bounded by the deadline, the stop and the lease: rejects with the
   * reason as soon as one of them ends the attempt, whether or not the handler ever settles.
   * With neither a timeout nor a command deadline the handler's own promise is returned (nothing
   * armed).
   */
  bound<T>(handled: Promise<T>): Promise<T> {
    const b = this.#bounds;
    if (b.timeoutMs === undefined && b.deadlineMicros === undefined) return handled;
    const limit = this.#limit();
    return new Promise<T>((resolve, reject) => {
      this.#onExpired = reject;
      // The handler's outcome is followed before the timer is armed: when the deadline had
      // already passed by the time the handler returned (it worked synchronously), a handler
      // that already settled still reports its own outcome, not the deadline.
      handled.then(
        (value) => {
          this.settle();
          resolve(value);
        },
        (error: unknown) => {
          this.settle();
          reject(error);
        },
      );
      this.#cancelTimer = startTimer(b.clock, limit.ms, () => {
        // A settled handler, or a stop or lost lease that came first, stays the outcome.
        if (this.#settled || this.#ended !== undefined || this.refusal() !== undefined) return;
        this.#timedOut = true;
        this.#deadlinePassed = limit.byDeadline;
        this.#expire(limit.byDeadline ? this.#pastDeadline() : this.#pastTimeout());
      });
      if (this.#ended === undefined) this.#link();
    });
  }

  /**
   * How long from now the attempt may run, and whether the command's deadline (rather than the
   * timeout) is what ends it. The deadline counts as passed once the clock is beyond it, as at
   * pick-up, hence the one extra microsecond; on a tie the deadline wins, since no retry could
   * start after it anyway.
   */
  #limit(): { readonly ms: number; readonly byDeadline: boolean } {
    const b = this.#bounds;
    const timeoutMs = b.timeoutMs ?? Infinity;
    if (b.deadlineMicros === undefined) return { ms: timeoutMs, byDeadline: false };
    const left = b.deadlineMicros - b.clock.nowMicros() + 1n;
    const deadlineMs = left > 0n ? Number(left) / 1000 : 0;
    return deadlineMs <= timeoutMs ? { ms: deadlineMs, byDeadline: true } : { ms: timeoutMs, byDeadline: false };
  }

  #pastTimeout(): TimeoutError {
    const b = this.#bounds;
    return new TimeoutError(`the handler ran past its timeout of ${String(b.timeoutMs)} ms (attempt ${this.#attempt + 1})`, { context: { ...b.address, attempt: this.#attempt, timeoutMs: b.timeoutMs } });
  }

  #pastDeadline(): TimeoutError {
    const b = this.#bounds;
    const deadline = String(b.deadlineMicros);
    return new TimeoutError(`the command's deadline (${deadline} µs) passed while the handler ran (attempt ${this.#attempt + 1})`, { context: { ...b.address, attempt: this.#attempt, deadlineMicros: deadline } });
  }

  /** The handler settled (or was given up on): nothing is armed or listened to any more. */
  settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#onExpired = undefined;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#unlink?.();
    this.#unlink = undefined;
  }

  /** Follows the stop and lease signals until the attempt settles. */
  #link(): void {
    if (this.#unlink !== undefined) return;
    const b = this.#bounds;
    const onAbort = (): void => {
      const reason = this.refusal();
      if (reason !== undefined) this.#expire(reason);
    };
    b.stop.addEventListener('abort', onAbort);
    b.lease?.addEventListener('abort', onAbort);
    this.#unlink = () => {
      b.stop.removeEventListener('abort', onAbort);
      b.lease?.removeEventListener('abort', onAbort);
    };
  }

  /** Ends the attempt with `reason`: the signal aborts and a bounded wait rejects. */
  #expire(reason: Error): void {
    const ended = this.#end(reason);
    const reject = this.#onExpired;
    this.settle();
    this.#controller?.abort(ended);
    reject?.(ended);
  }

  #end(reason: Error): Error {
    return (this.#ended ??= reason);
  }
}
