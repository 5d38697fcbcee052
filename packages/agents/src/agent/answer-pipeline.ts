/**
 * Pipelined answers: a handler's appends (responses, chunks, statuses, errors) are issued without
 * awaiting each acknowledgment, in order per place through an {@link OrderedAppender}, and
 * tracked per handled record, so the runtime can handle the next record while earlier answers
 * are still being acknowledged and commit a record only once all of its answers are.
 */
import { InvalidError } from '@agdx/wire';
import type { AppendIssuer, PreparedAppend } from '../send/append-issuer.js';
import type { OrderedAppender } from '../send/ordered-appender.js';
import type { BatchPosition } from '../client/client-core.js';

/** Bounds on the answers in flight (issued, not yet acknowledged) of one agent. */
export interface PipelineLimits {
  /** Most appends in flight at once (default 1,024). */
  readonly maxInFlightAppends: number;
  /** Most payload bytes in flight at once (default 8 MiB; one larger append still goes alone). */
  readonly maxInFlightBytes: number;
}

/** The default bounds. */
export const DEFAULT_PIPELINE_LIMITS: PipelineLimits = { maxInFlightAppends: 1024, maxInFlightBytes: 8 * 1024 * 1024 };

/** Validates limits. @throws InvalidError */
export function checkPipelineLimits(limits: Partial<PipelineLimits>): PipelineLimits {
  const out = { ...DEFAULT_PIPELINE_LIMITS, ...limits };
  for (const field of ['maxInFlightAppends', 'maxInFlightBytes'] as const) {
    const value = out[field];
    if (!Number.isSafeInteger(value) || value < 1) throw new InvalidError(`${field} must be a safe integer of at least 1`, { context: { field } });
  }
  return out;
}

/** One agent's back-pressure: an issue waits while the answers in flight are at a bound. */
export class AppendWindow {
  readonly #limits: PipelineLimits;
  #appends = 0;
  #bytes = 0;
  #waiters: (() => void)[] = [];

  /** A window with these bounds. */
  constructor(limits: PipelineLimits) {
    this.#limits = limits;
  }

  /** Takes room for one append of `bytes`: undefined when there is room now, else a wait for it. */
  admit(bytes: number): Promise<void> | undefined {
    if (this.#fits(bytes)) {
      this.#take(bytes);
      return undefined;
    }
    return this.#admitLater(bytes);
  }

  /** Gives back the room of an acknowledged (or failed) append. */
  release(bytes: number): void {
    this.#appends--;
    this.#bytes -= bytes;
    // Everyone re-checks: a small append may fit where a large one does not.
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #admitLater(bytes: number): Promise<void> {
    // Each pass follows a release, and every admitted append is released once it settles either
    // way (AnswerEffects.#answered, whatever the appender does).
    while (!this.#fits(bytes)) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#take(bytes);
  }

  #fits(bytes: number): boolean {
    // With nothing in flight anything fits, so an append above the byte bound cannot wait forever.
    return this.#appends === 0 || (this.#appends < this.#limits.maxInFlightAppends && this.#bytes + bytes <= this.#limits.maxInFlightBytes);
  }

  #take(bytes: number): void {
    this.#appends++;
    this.#bytes += bytes;
  }
}

/**
 * The answers of one handler attempt: issues each through the agent's window and ordered
 * appender and remembers its acknowledgment; {@link settled} resolves once all are acknowledged
 * and rejects with the first failure.
 */
export class AnswerEffects implements AppendIssuer {
  readonly #window: AppendWindow;
  readonly #appender: OrderedAppender;
  /** Answers issued and not yet acknowledged (or failed), counted from the moment of issue. */
  #pending = 0;
  #failure: { readonly error: unknown } | undefined;
  /** The promise {@link settled} handed out while answers were pending, and how to settle it. */
  #settled: Promise<void> | undefined;
  #resolve: (() => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;

  /** Effects issued through `window` and `appender`. */
  constructor(window: AppendWindow, appender: OrderedAppender) {
    this.#window = window;
    this.#appender = appender;
  }

  /** Issues `append` once the window has room. */
  issue(append: PreparedAppend): Promise<void> | undefined {
    let bytes = 0;
    for (const record of append.records) bytes += record.payload.length;
    // Counted now, not once the window admits it: a settled() meanwhile waits for it too.
    this.#pending++;
    const room = this.#window.admit(bytes);
    if (room === undefined) {
      this.#send(append, bytes);
      return undefined;
    }
    return room.then(() => this.#send(append, bytes));
  }

  /**
   * Resolves when every issued append was acknowledged; rejects with the first failure. Appends
   * issued while waiting (a handler that did not await its calls) are waited for too. A count,
   * not a list of acknowledgment promises: nothing is awaited when all are in, and one promise
   * serves the wait otherwise (an async frame and an await per record before).
   */
  settled(): Promise<void> {
    if (this.#pending === 0) return this.#failure === undefined ? SETTLED : Promise.reject(this.#failure.error);
    return (this.#settled ??= new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    }));
  }

  #send(append: PreparedAppend, bytes: number): void {
    // Every issued answer must come back through #answered exactly once, or settled() waits
    // forever and the window never gets its room back (stalling every handler of the agent). So
    // an appender that throws instead of rejecting counts as a failed append, and the room and
    // the count are given back before the sender's callback runs, whatever that callback does.
    let acknowledged: Promise<BatchPosition>;
    try {
      acknowledged = this.#appender.append(append);
    } catch (error) {
      acknowledged = Promise.reject(error);
    }
    acknowledged.then(
      (at) => this.#answered(append, bytes, at, undefined),
      (error: unknown) => this.#answered(append, bytes, undefined, { error }),
    );
  }

  /** One answer came back (acknowledged, or failed with `failure`): room, count, then the sender's callback. */
  #answered(append: PreparedAppend, bytes: number, at: BatchPosition | undefined, failure: { readonly error: unknown } | undefined): void {
    this.#window.release(bytes);
    if (failure !== undefined) this.#failure ??= failure;
    this.#acknowledged();
    try {
      append.acknowledged?.(at, failure?.error);
    } catch {
      // The callback must not throw (it ends a telemetry span); if one does, the answer's
      // outcome stands as recorded above.
    }
  }

  /** One answer is in (either way): the last one settles the wait. */
  #acknowledged(): void {
    if (--this.#pending > 0 || this.#settled === undefined) return;
    const failure = this.#failure;
    if (failure === undefined) this.#resolve?.();
    else this.#reject?.(failure.error);
    this.#settled = undefined;
    this.#resolve = undefined;
    this.#reject = undefined;
  }
}

/** What settled() returns when every answer was already acknowledged. */
const SETTLED: Promise<void> = Promise.resolve();
