/**
 * The errors @agdx/agents throws on purpose. Each extends @agdx/wire's branded {@link AgdxError},
 * so `instanceof` and `AgdxError.is(e, kind)` work across separately installed copies.
 *
 * Kinds outside wire's `ErrorKind` union (`no-stream`, `handler-config`, `policy-blocked`,
 * `publish-failed`) keep the names of the reference SDK so retry classifiers can tell them apart.
 */
import { AgdxError, type AgdxErrorOptions, type ErrorKind } from '@agdx/wire';

/** Error kinds this package adds to wire's `ErrorKind` union. */
export type AgentsErrorKind = ErrorKind | 'no-stream' | 'handler-config' | 'policy-blocked' | 'publish-failed';

// AgdxError types `kind` as wire's closed union; the extra kinds are carried as the same string.
const kindOf = (kind: AgentsErrorKind): ErrorKind => kind as ErrorKind;

/** A wait or call ran past its deadline (kind `timeout`). */
export class TimeoutError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'timeout';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('timeout', message, options);
  }
}

/** The caller's AbortSignal fired (kind `cancelled`). */
export class CancelledError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'cancelled';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('cancelled', message, options);
  }
}

/** The other side answered with an error, for example an approver refusing an input request (kind `rejected`). */
export class RejectedError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'rejected';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('rejected', message, options);
  }
}

/** A send or read needed a default stream and the client has none (kind `no-stream`). */
export class NoStreamError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = kindOf('no-stream');
  constructor(message: string = 'the client has no default stream; use withDefaultStream(stream)', options?: AgdxErrorOptions) {
    super(kindOf('no-stream'), message, options);
  }
}

/** An agent or handler was configured wrongly (kind `handler-config`). */
export class HandlerConfigError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = kindOf('handler-config');
  constructor(message: string, options?: AgdxErrorOptions) {
    super(kindOf('handler-config'), message, options);
  }
}

/** The ActionGovernor denied a send; nothing was published (kind `policy-blocked`). */
export class PolicyBlockedError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = kindOf('policy-blocked');
  constructor(message: string, options?: AgdxErrorOptions) {
    super(kindOf('policy-blocked'), message, options);
  }
}

/**
 * The transport refused or failed an append (kind `publish-failed`). The transport's own error is
 * the `cause`; `retryable` says whether trying again may help (a network failure or timeout).
 */
export class PublishFailedError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = kindOf('publish-failed');
  /** True when the cause was transient (transport `timeout` or `transport` kinds). */
  readonly retryable: boolean;
  constructor(message: string, options?: AgdxErrorOptions & { readonly retryable?: boolean }) {
    super(kindOf('publish-failed'), message, options);
    this.retryable = options?.retryable ?? false;
  }
}
