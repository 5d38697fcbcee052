/**
 * The error of a request whose outcome nobody knows: it was written, and the connection broke
 * (or the primary changed) before the reply arrived. An append that fails this way may have
 * been stored; a caller that must not lose it sends it again and accepts a possible duplicate
 * (at-least-once), which is what the agents' retry does for every `transport` error.
 */

import { TransportFailureError } from '@agdx/transport';
import type { TransportErrorOptions } from '@agdx/transport';

/** The `context.outcome` value that marks an unknown outcome. */
const UNKNOWN = 'unknown';

/**
 * A `transport` error (so retry policies treat it as one) whose `context.outcome` is
 * `'unknown'`. `instanceof OutcomeUnknownError` and {@link isOutcomeUnknown} check that marker,
 * so they work across separately installed copies and tell it from a clean failure.
 */
export class OutcomeUnknownError extends TransportFailureError {
  /** Creates the error; `context.outcome` is always `'unknown'`. */
  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, { ...options, context: { ...options.context, outcome: UNKNOWN } });
  }

  /** Brand, kind `transport` and the unknown-outcome marker. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return TransportFailureError.is(value, 'transport') && value.context?.['outcome'] === UNKNOWN;
  }
}

/**
 * True for an error whose request may or may not have been applied: an
 * {@link OutcomeUnknownError}, or a `timeout` of a written mutation (both carry
 * `context.outcome === 'unknown'`).
 */
export function isOutcomeUnknown(value: unknown): boolean {
  return (TransportFailureError.is(value, 'transport') || TransportFailureError.is(value, 'timeout')) && value.context?.['outcome'] === UNKNOWN;
}
