/**
 * The AGDX error model: one branded base class with a stable `kind`, and a subclass per kind.
 *
 * Packages are installed separately, so two copies of this module can meet in one process.
 * `instanceof` and {@link AgdxError.is} therefore check a global brand and the `kind` string,
 * never prototype identity.
 */

const BRAND: unique symbol = Symbol.for('agdx.error') as never;

/** Stable error kinds shared by every `@agdx/*` package. */
export type ErrorKind =
  | 'invalid'
  | 'codec'
  | 'integrity'
  | 'signature'
  | 'timeout'
  | 'cancelled'
  | 'unsupported'
  | 'transport'
  | 'rejected'
  | 'stale-session'
  | 'not-found'
  | 'conflict'
  | 'closed'
  | 'no-stream'
  | 'handler'
  | 'handler-config'
  | 'policy-blocked'
  | 'publish-failed'
  | 'step-up-required'
  | 'budget-exceeded';

/** Options accepted by every AGDX error constructor. */
export interface AgdxErrorOptions {
  /** The underlying error, when this one wraps another. */
  readonly cause?: unknown;
  /** Structured detail (for example the offending `field`). */
  readonly context?: Readonly<Record<string, unknown>>;
}

function isBranded(value: unknown): value is AgdxError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Base class of every error an `@agdx/*` package throws on purpose. */
export class AgdxError extends Error {
  /** The stable, machine-readable kind. */
  readonly kind: ErrorKind;
  /** Structured detail, when the thrower had any. */
  readonly context: Readonly<Record<string, unknown>> | undefined;

  constructor(kind: ErrorKind, message: string, options: AgdxErrorOptions = {}) {
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
  static is(value: unknown, kind?: ErrorKind): value is AgdxError {
    return isBranded(value) && (kind === undefined || value.kind === kind);
  }

  /** Makes `instanceof` work across separately installed copies: brand plus kind. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (!isBranded(value)) return false;
    const kind = (this as unknown as { readonly KIND?: ErrorKind }).KIND;
    return kind === undefined || value.kind === kind;
  }
}

/** Input broke a documented rule (shape, cap, identifier syntax). */
export class InvalidError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'invalid';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('invalid', message, options);
  }
}

/** Bytes could not be decoded (malformed CBOR, wrong type for a known field, bad header). */
export class CodecError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'codec';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('codec', message, options);
  }
}

/** Stored bytes did not match their declared size or digest. */
export class IntegrityError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'integrity';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('integrity', message, options);
  }
}

/** A feature is not served by this deployment or this build. */
export class UnsupportedError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'unsupported';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('unsupported', message, options);
  }
}
