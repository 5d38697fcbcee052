/**
 * The two transient statuses: 57 and 58 on a lone VSR server mean "send the same bytes again
 * shortly"; 58 (TransientNotAccepted) from a node of a cluster means "not the primary, nothing
 * applied", so the call is kept for the primary the reconnect finds, a bounded number of times.
 */

import { TransportFailureError } from '@agdx/transport';
import type { IggyError } from '@agdx/iggy-protocol';
import type { Endpoint } from '../cluster-directory.js';
import { toTransportError } from '../error-mapping.js';
import { settle } from './call.js';
import type { Call } from './call.js';

/** How long a VSR transient status (57/58) waits before the identical bytes go out again. */
export const TRANSIENT_RESEND_MS = 50;
/** Iggy's TransientNotAccepted: a node of a cluster refused because it is not the primary. */
export const TRANSIENT_NOT_ACCEPTED = 58;
/**
 * How many times one call may be refused with 58 before it fails. A view change costs one or two
 * refusals; a node that keeps refusing while its roster names it the leader (a stuck or hostile
 * node) would otherwise make the client reconnect and resend until the call's timeout.
 */
export const MAX_NOT_ACCEPTED = 6;

/**
 * Counts one 58 refusal of a written call. Below {@link MAX_NOT_ACCEPTED} the call is marked to
 * go out again after the reconnect; at the limit it fails, cleanly: refused every time, so
 * nothing was applied (not an unknown outcome).
 */
export function refuseAsNotPrimary(call: Call, error: IggyError, endpoint: Endpoint | undefined): void {
  call.refusals++;
  if (call.refusals >= MAX_NOT_ACCEPTED) {
    settle(call, {
      error: new TransportFailureError(`the Iggy cluster refused the request ${call.refusals} times as not the primary (58); it was not applied`, {
        cause: toTransportError(error),
        context: { command: call.code, refusals: call.refusals, endpoint, outcome: 'not-applied' },
      }),
    });
  } else call.notAccepted = true;
}

/** The loss that a 58 from a cluster node causes: the connection moves to find the primary. */
export function notPrimaryLoss(error: IggyError, endpoint: Endpoint | undefined): TransportFailureError {
  return new TransportFailureError('the Iggy node is not the primary; finding the new one', { cause: toTransportError(error), context: { endpoint } });
}

/**
 * Arms one resend of a call's frame after {@link TRANSIENT_RESEND_MS}. One per status: a
 * duplicated 57 must not put the request on the wire twice. `resend` decides whether the
 * request still waits on the same session when the pause ends.
 */
export function armResend(call: Call, resend: () => void): void {
  if (call.resendArmed) return;
  call.resendArmed = true;
  setTimeout(() => {
    call.resendArmed = false;
    resend();
  }, TRANSIENT_RESEND_MS).unref?.();
}
