import { AgdxError, type AgdxErrorOptions, type ErrorKind } from '@agdx/wire';

/**
 * The session lane changed under a session factory (stream or `agent.sessions` recreated, or its
 * partition count changed): kind `stale-session`, message prefix `stale session generation: `.
 */
export class StaleSessionError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'stale-session';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('stale-session', `stale session generation: ${message}`, options);
  }
}

/** A topic a custom layout needs does not exist (kind `not-found`). */
export class MissingTopicError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'not-found';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('not-found', message, options);
  }
}

/** Why a reader refused a fold snapshot. */
export type FoldSnapshotRejection = 'corrupt' | 'stream' | 'layout' | 'topics' | 'generation' | 'beyond-end';

/**
 * A fold snapshot a session reader found could not be used: undecodable or beyond the wire limits
 * (`corrupt`), written for another stream or stream layout, over other topics or partition counts,
 * for an earlier generation of a topic (deleted and recreated since), or resuming beyond a
 * partition's end. Kind `conflict`; `context.reason` says which. The reader reports it to the
 * factory's `onError` and folds from the log instead, so a bad snapshot never changes an answer.
 */
export class FoldSnapshotRejectedError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'conflict';
  /** Why the snapshot was refused. */
  readonly reason: FoldSnapshotRejection;
  constructor(reason: FoldSnapshotRejection, message: string, options?: AgdxErrorOptions) {
    super('conflict', `fold snapshot rejected (${reason}): ${message}`, { ...options, context: { ...options?.context, reason } });
    this.reason = reason;
  }
}
