/**
 * Which login failures end a connection for good: reconnecting with the same credentials would
 * be refused the same way, so queued and later calls fail at once instead of waiting out the
 * reconnect policy.
 */

import { EvictionReason, IggyError, IggyEvictionError } from '@agdx/iggy-protocol';

/** Eviction reasons after which logging in again cannot help. */
const FATAL_EVICTIONS: ReadonlySet<number> = new Set([
  EvictionReason.InvalidCredentials,
  EvictionReason.InvalidToken,
  EvictionReason.UserInactive,
  EvictionReason.IncompatibleProtocol,
  EvictionReason.MalformedLogin,
]);
/**
 * Classic login statuses after which logging in again cannot help. Iggy 0.8 answers an unknown
 * or revoked token with 20 (ResourceNotFound) and an expired one with 54.
 */
const FATAL_LOGIN_CODES: ReadonlySet<number> = new Set([20, 41, 42, 43, 44, 47, 53, 54]);

/** True for an eviction (at any time) whose reason a fresh login would meet again. */
export function isFatalEviction(error: unknown): boolean {
  return error instanceof IggyEvictionError && FATAL_EVICTIONS.has(error.reason);
}

/** True for a failed login (eviction or classic status) that logging in again cannot fix. */
export function isFatalLoginFailure(error: unknown): boolean {
  if (error instanceof IggyEvictionError) return FATAL_EVICTIONS.has(error.reason);
  return error instanceof IggyError && FATAL_LOGIN_CODES.has(error.code);
}
