/**
 * The transport's error model. `@agdx/transport` depends on no other `@agdx/*` package, so it
 * declares its own base class, branded with the same global symbol and `kind` convention as
 * `@agdx/wire`: an error thrown here is recognised by `AgdxError.is(e, 'not-found')` in any
 * other package, and `instanceof` works across separately installed copies.
 */

const BRAND: unique symbol = Symbol.for('agdx.error') as never;

/** Stable error kinds a transport throws. A subset of the kinds every `@agdx/*` package shares. */
export type TransportErrorKind =
  | 'invalid'
  | 'not-found'
  | 'transport'
  | 'timeout'
  | 'cancelled'
  | 'closed'
  | 'conflict';

/** Options accepted by every transport error constructor. */
export interface TransportErrorOptions {
  /** The underlying error, when this one wraps another. */
  readonly cause?: unknown;
  /** Structured detail (for example the offending `field`, `stream` or `partition`). */
  readonly context?: Readonly<Record<string, unknown>>;
}

function isBranded(value: unknown): value is TransportError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Base class of every error a transport throws on purpose. */
export class TransportError extends Error {
  /** The stable, machine-readable kind. */
  readonly kind: TransportErrorKind;
  /** Structured detail, when the thrower had any. */
  readonly context: Readonly<Record<string, unknown>> | undefined;

  /** Creates an error of `kind`; `options.cause` and `options.context` are kept as given. */
  constructor(kind: TransportErrorKind, message: string, options: TransportErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.context = options.context;
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: true, enumerable: false });
  }

  /**
   * True when `value` is an AGDX error from any installed copy of any `@agdx/*` package,
   * optionally of the given kind.
   */
  static is(value: unknown, kind?: TransportErrorKind): value is TransportError {
    return isBranded(value) && (kind === undefined || value.kind === kind);
  }

  /** Makes `instanceof` work across separately installed copies: brand plus kind. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (!isBranded(value)) return false;
    const kind = (this as unknown as { readonly KIND?: TransportErrorKind }).KIND;
    return kind === undefined || value.kind === kind;
  }
}

/** An argument broke a documented rule: a bad name, partition, offset, count or header. */
export class InvalidArgumentError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'invalid';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('invalid', message, options);
  }
}

/** The named stream, topic, partition, consumer offset or group does not exist. */
export class NotFoundError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'not-found';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('not-found', message, options);
  }
}

/** The log could not be reached or answered with a failure (network transports). */
export class TransportFailureError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'transport';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('transport', message, options);
  }
}

/** An operation did not complete within its time limit. */
export class TimeoutError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'timeout';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('timeout', message, options);
  }
}

/** The caller's `AbortSignal` fired before the operation completed. */
export class CancelledError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'cancelled';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('cancelled', message, options);
  }
}

/** The transport (or group member) was closed; no further calls are accepted. */
export class ClosedError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'closed';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('closed', message, options);
  }
}

/**
 * The request contradicts existing state: a topic re-ensured with another partition count, or a
 * group offset stored for a partition this member does not own.
 */
export class ConflictError extends TransportError {
  /** The kind every instance carries. */
  static readonly KIND: TransportErrorKind = 'conflict';
  /** Creates the error with a human-readable message and optional cause and context. */
  constructor(message: string, options?: TransportErrorOptions) {
    super('conflict', message, options);
  }
}
