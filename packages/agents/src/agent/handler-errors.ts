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

/** A short description of a failure for a dead letter's detail. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
