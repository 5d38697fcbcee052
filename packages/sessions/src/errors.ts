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
