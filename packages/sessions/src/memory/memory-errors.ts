import { AgdxError, type AgdxErrorOptions, type ErrorKind } from '@agdx/wire';

/**
 * The user's embedder failed: it threw (the error is the `cause`), returned the wrong number of
 * vectors, a vector of the wrong dimension, or a non-finite component (kind `handler`).
 */
export class EmbedderError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'handler';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('handler', `embedder failed: ${message}`, options);
  }
}

/** The user's summarizer given to `consolidate` threw or returned neither text nor bytes (kind `handler`). */
export class SummarizerError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'handler';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('handler', `summarizer failed: ${message}`, options);
  }
}
