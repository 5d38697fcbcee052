import { AgdxError, type ErrorKind } from '@agdx/wire';

/** A handler threw something that is not an AGDX error; retried like a transient failure (kind `handler`). */
export class HandlerError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'handler' as ErrorKind;
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super('handler' as ErrorKind, message, options);
  }
}

const RETRYABLE_KINDS: ReadonlySet<string> = new Set(['timeout', 'handler', 'policy-deferred']);

/**
 * Whether a handler failure is worth another attempt: timeouts, plain (non-AGDX) throws and
 * transport failures flagged retryable are; configuration, validation, codec, signature,
 * rejection and policy errors are not (retrying cannot change their outcome).
 */
export function isRetryable(error: unknown): boolean {
  if (!AgdxError.is(error)) return true;
  if (RETRYABLE_KINDS.has(error.kind)) return true;
  if (error.kind === 'transport' || (error.kind as string) === 'publish-failed') {
    const flag = (error as { readonly retryable?: unknown }).retryable;
    return flag === undefined ? error.kind === 'transport' : flag === true;
  }
  return false;
}

/**
 * A short description of a failure for a dead letter's detail. Never throws: a handler may throw
 * anything, and a description that threw would keep the record from ever being dead-lettered.
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) {
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return `${error.message}${cause}`;
    }
    return String(error);
  } catch {
    // `Object.create(null)`, a throwing `toString` or `message` getter: no text form to show.
    return 'a thrown value with no text form';
  }
}
