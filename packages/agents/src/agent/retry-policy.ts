import { InvalidError } from '@agdx/wire';

/** How often and how patiently a handler is retried before its record is dead-lettered. */
export interface RetryPolicy {
  /** Handler attempts per record, at least 1 (1 = no retry). */
  readonly maxAttempts: number;
  /** The first backoff in ms; attempt `n` (0-based) waits `baseDelayMs × 2^n`. */
  readonly baseDelayMs: number;
  /** Upper bound of one backoff in ms (default 30,000), so the delay never grows without limit. */
  readonly maxDelayMs?: number | undefined;
}

/** The 0.1.1 defaults: 5 attempts, 200 ms first backoff. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 30_000 };

const MAX_EXPONENT = 16;

/** Validates a retry policy. @throws InvalidError naming the bad field. */
export function checkRetryPolicy(policy: RetryPolicy): RetryPolicy {
  if (!Number.isSafeInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new InvalidError('retry maxAttempts must be a safe integer of at least 1', { context: { field: 'maxAttempts' } });
  }
  if (!Number.isFinite(policy.baseDelayMs) || policy.baseDelayMs < 0) {
    throw new InvalidError('retry baseDelayMs must be a finite number of at least 0', { context: { field: 'baseDelayMs' } });
  }
  const max = policy.maxDelayMs;
  if (max !== undefined && (!Number.isFinite(max) || max < 0)) {
    throw new InvalidError('retry maxDelayMs must be a finite number of at least 0', { context: { field: 'maxDelayMs' } });
  }
  return { maxAttempts: policy.maxAttempts, baseDelayMs: policy.baseDelayMs, maxDelayMs: max ?? DEFAULT_RETRY_POLICY.maxDelayMs };
}

/**
 * The wait before the retry that follows failed attempt `attempt` (0-based): bounded
 * exponential backoff, `min(baseDelayMs × 2^min(attempt, 16), maxDelayMs)`, without jitter so
 * tests on a manual clock are exact.
 */
export function backoffDelayMs(policy: RetryPolicy, attempt: number): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), MAX_EXPONENT);
  const delay = policy.baseDelayMs * 2 ** exponent;
  return Math.min(delay, policy.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs ?? delay);
}
