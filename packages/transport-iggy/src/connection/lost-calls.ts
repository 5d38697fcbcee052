/**
 * What becomes of the calls written on a connection that was lost before their replies came:
 * which go out again after the reconnect and which fail, and with what outcome.
 */

import { TransportFailureError } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';
import { OutcomeUnknownError } from '../outcome-unknown.js';
import { drop, released, settle } from './call.js';
import type { Call } from './call.js';

/** Why the connection was lost and what may still be retried. */
export interface Loss {
  /** The failure that ended the connection. */
  readonly error: TransportError;
  /** The loss came during a restore: the restore's own internal calls fail so it starts over. */
  readonly restoring: boolean;
  /** A failure no reconnect can fix (set after a fatal eviction or login), if any. */
  readonly fatal: TransportError | undefined;
}

/**
 * Settles or keeps each of `written` (the in-flight calls, in order) and returns those to write
 * again, in order: a call refused unapplied as not the primary (58), and a read written once.
 * A read lost a second time fails with a known outcome (it changed nothing); a mutation fails
 * with {@link OutcomeUnknownError}, since it may have been applied.
 */
export function sortLostCalls(written: readonly Call[], loss: Loss): Call[] {
  const { error, restoring, fatal } = loss;
  const retry: Call[] = [];
  for (const call of written) {
    if (call.settled) {
      released(call);
      continue;
    }
    if (restoring && call.internal) {
      settle(call, { error });
      released(call);
    } else if (call.notAccepted && fatal === undefined) {
      // Refused unapplied (58): it goes out again in its place, whatever kind it is.
      call.notAccepted = false;
      call.written = false;
      retry.push(call);
    } else if (call.idempotent && !call.retried && fatal === undefined) {
      call.retried = true;
      call.written = false;
      retry.push(call);
    } else if (call.idempotent) {
      // A read lost again (or with no way back): it changed nothing, so its outcome is not in doubt.
      drop(call, fatal ?? new TransportFailureError('the Iggy connection was lost again before a read written twice was answered', { cause: error, context: { command: call.code } }));
    } else {
      released(call);
      settle(call, {
        error: new OutcomeUnknownError('the Iggy connection was lost after the request was written and before its reply arrived: it may or may not have been applied', {
          cause: error,
          context: { command: call.code },
        }),
      });
    }
  }
  return retry;
}
