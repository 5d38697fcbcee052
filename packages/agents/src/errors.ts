/**
 * The errors @agdx/agents throws on purpose. Each extends @agdx/wire's branded {@link AgdxError},
 * so `instanceof` and `AgdxError.is(e, kind)` work across separately installed copies.
 *
 * Kinds outside wire's `ErrorKind` union (`no-stream`, `handler-config`, `policy-blocked`,
 * `publish-failed`) keep the names of the reference SDK so retry classifiers can tell them apart;
 * `layout-mismatch` is ours.
 */
import { AgdxError, type AgdxErrorOptions, type ErrorKind } from '@agdx/wire';

/** Error kinds this package adds to wire's `ErrorKind` union. */
export type AgentsErrorKind = ErrorKind | 'no-stream' | 'handler-config' | 'policy-blocked' | 'publish-failed' | 'layout-mismatch';

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

/**
 * The log was written with another stream layout than the reader was given (kind
 * `layout-mismatch`): a declared per-agent topic or partition is missing, or records the reader's
 * layout puts elsewhere were found where another layout writes them. Reading on would return
 * nothing, or a part of the conversation, so the reader says so instead. `context` names the
 * stream, topic and, where known, agent and partition.
 */
export class LayoutMismatchError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = kindOf('layout-mismatch');
  constructor(message: string, options?: AgdxErrorOptions) {
    super(kindOf('layout-mismatch'), message, options);
  }
}

/** Why a reader skipped a record instead of using it. */
export type SkipReason =
  /** The record does not decode (or breaks the envelope rules). */
  | 'undecodable'
  /** A verifier is set and the record is unsigned, signed by an unknown, revoked or expired key, or tampered. */
  | 'unverified'
  /** The record's `source` is not the agent its signing key is enrolled for. */
  | 'source-mismatch'
  /** The signature verifies, but the wait's policy does not accept that signer. */
  | 'signer-not-allowed'
  /** A control record or capsule body the reader cannot apply. */
  | 'unusable'
  /** A parked record whose source topic was deleted (or deleted and recreated) since it was parked, or that its source no longer holds. */
  | 'stale-source'
  /**
   * A copy appended again: a control record whose record id was already applied to its session,
   * a verified command whose record id the agent already took on at another position, or a reply
   * whose record id already answered a wait.
   */
  | 'replayed';

/**
 * A reader skipped one record and went on (reply hubs, the control follower). Delivered to
 * `onError` hooks, never thrown at a caller. `position` names the record; the kind is the cause's
 * kind when the cause is an AGDX error (`codec`, `signature`, ...), else `invalid`.
 */
export class SkippedRecordError extends AgdxError {
  /** Why the record was skipped. */
  readonly reason: SkipReason;
  /** Where the skipped record is. */
  readonly position: {
    readonly stream: string;
    readonly topic: string;
    readonly partition: number;
    readonly offset: bigint;
  };
  constructor(
    reason: SkipReason,
    position: SkippedRecordError['position'],
    message: string,
    options?: AgdxErrorOptions,
  ) {
    const cause = options?.cause;
    const kind: ErrorKind = AgdxError.is(cause) ? cause.kind : reason === 'source-mismatch' || reason === 'signer-not-allowed' ? 'signature' : reason === 'stale-source' ? 'stale-session' : 'invalid';
    super(kind, `${message} (${position.stream}/${position.topic} partition ${position.partition} offset ${position.offset})`, {
      ...options,
      context: { ...options?.context, reason, ...position },
    });
    this.reason = reason;
    this.position = position;
  }
}
