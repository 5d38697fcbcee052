/**
 * One request's life on a connection: the options a caller passes, the record the connection
 * keeps while the request is queued or in flight, and the two ways it ends (settled, released).
 */

import { CancelledError, TimeoutError, watchAbort } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';

/** Options of one `IggyConnection.request`. */
export interface RequestOptions {
  /** Aborting rejects the call with `CancelledError`. */
  readonly signal?: AbortSignal | undefined;
  /** Overrides the connection's default request timeout. */
  readonly timeoutMs?: number | undefined;
  /**
   * The call changes nothing on the server, so it may be written again after a lost connection
   * (reads). Mutations are never replayed: they fail with a `transport` error instead.
   */
  readonly idempotent?: boolean | undefined;
  /**
   * The bytes before `body` in its buffer are free for the request header (VSR 256, classic 8),
   * so the frame is built around the body instead of copying it.
   */
  readonly headerInPlace?: boolean | undefined;
  /**
   * Called once the request no longer occupies the connection: answered, failed, or dropped
   * unwritten. For an aborted call that was written this is later than its rejection: the
   * request stays on the wire until its reply or a reset (see `AppendCoalescer`).
   */
  readonly onRelease?: (() => void) | undefined;
}

/** A request the connection holds, queued or written, until it is settled and released. */
export interface Call {
  readonly code: number;
  readonly body: Uint8Array;
  readonly idempotent: boolean;
  /** See `RequestOptions.headerInPlace`. */
  readonly headerInPlace: boolean;
  /** The call's time limit, ms. */
  readonly timeoutMs: number;
  /** Restore-hook and heartbeat calls may go out before the connection is `ready`. */
  readonly internal: boolean;
  readonly resolve: (payload: Uint8Array) => void;
  readonly reject: (error: TransportError) => void;
  settled: boolean;
  written: boolean;
  retried: boolean;
  /** The node refused it unapplied as not the primary (58): it is sent again after failover. */
  notAccepted: boolean;
  /** How many times a node refused it with 58; bounded by `MAX_NOT_ACCEPTED`. */
  refusals: number;
  /** A transient status (57/58) armed a resend of its frame that has not gone out yet. */
  resendArmed: boolean;
  /** The session's record of the written request, to match its reply. */
  pending: unknown;
  /** `RequestOptions.onRelease`, cleared once called. */
  release: (() => void) | undefined;
  cleanup: () => void;
}

/** Tells the call's owner that the connection is done with its request (once). */
export function released(call: Call): void {
  const release = call.release;
  call.release = undefined;
  release?.();
}

/** Resolves or rejects the caller's promise (once) and stops the call's timer and abort watch. */
export function settle(call: Call, outcome: { payload: Uint8Array } | { error: TransportError }): void {
  if (call.settled) return;
  call.settled = true;
  call.cleanup();
  if ('payload' in outcome) call.resolve(outcome.payload);
  else call.reject(outcome.error);
}

/** Fails a call taken off the queue or the in-flight list for good, and releases it. */
export function drop(call: Call, error: TransportError): void {
  settle(call, { error });
  released(call);
}

/** The request a new call carries and where its promise settles. */
export interface CallStart {
  readonly code: number;
  readonly body: Uint8Array;
  readonly options: RequestOptions;
  /** See `Call.internal`. */
  readonly internal: boolean;
  /** The call's time limit, ms (the option's, else the connection's default). */
  readonly timeoutMs: number;
  readonly resolve: (payload: Uint8Array) => void;
  readonly reject: (error: TransportError) => void;
  /** Ends the call early once its time limit passed; `reset` asks for a connection reset if it was written. */
  readonly abandon: (call: Call, error: TransportError, reset: boolean) => void;
}

/**
 * Makes the record of a new call and starts its time limit and its abort watch; both end it
 * through `abandon` (a timeout resets the connection if the call was written, an abort does
 * not). {@link settle} stops them.
 */
export function startCall(start: CallStart): Call {
  const { code, body, options, internal, timeoutMs, resolve, reject, abandon } = start;
  const signal = options.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unwatch: (() => void) | undefined;
  const call: Call = {
    code,
    body,
    idempotent: options.idempotent === true,
    headerInPlace: options.headerInPlace === true,
    timeoutMs,
    internal,
    settled: false,
    written: false,
    retried: false,
    notAccepted: false,
    refusals: 0,
    resendArmed: false,
    pending: undefined,
    release: options.onRelease,
    resolve,
    reject,
    cleanup: () => {
      if (timer !== undefined) clearTimeout(timer);
      unwatch?.();
    },
  };
  // A written request that timed out may still have been applied: it says so.
  const timedOut = (): TimeoutError =>
    new TimeoutError(`Iggy request ${code} timed out after ${timeoutMs} ms`, { context: { code, timeoutMs, ...(call.written && !call.idempotent ? { outcome: 'unknown' } : {}) } });
  timer = setTimeout(() => abandon(call, timedOut(), true), timeoutMs);
  // Many concurrent calls often share one signal: one listener per signal, not per call.
  unwatch = watchAbort(signal, () => abandon(call, new CancelledError('the operation was aborted', { cause: signal?.reason }), false));
  return call;
}
