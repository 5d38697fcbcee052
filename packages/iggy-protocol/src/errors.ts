/**
 * The package's error model. It follows the AGDX brand convention without depending on
 * `@agdx/wire`: every error carries the global brand `Symbol.for('agdx.error')` and a stable
 * `kind`, so `instanceof` and {@link IggyProtocolError.is} work across separately installed copies.
 */

import { iggyErrorName } from './error-codes.js';

const BRAND: unique symbol = Symbol.for('agdx.error') as never;

/**
 * Stable kinds thrown by this package.
 * - `codec`: bytes from the peer are malformed (truncated, wrong size, unknown kind).
 * - `invalid`: the caller passed a bad argument or used a session out of order.
 * - `integrity`: a checksum carried by the bytes does not match their content.
 * - `rejected`: the server answered with an Iggy error status, a result code or an eviction.
 * - `unsupported`: the runtime lacks something an opt-in feature needs (WebAssembly for the
 *   batch hasher of `@agdx/iggy-protocol/wasm-checksums`).
 */
export type IggyErrorKind = 'codec' | 'invalid' | 'integrity' | 'rejected' | 'unsupported';

/** Options accepted by every error constructor of this package. */
export interface IggyProtocolErrorOptions {
  /** The underlying error, when this one wraps another. */
  readonly cause?: unknown;
  /** Structured detail (for example the offending `field` and byte `offset`). */
  readonly context?: Readonly<Record<string, unknown>>;
}

function isBranded(value: unknown): value is IggyProtocolError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Base class of every error this package throws on purpose. */
export class IggyProtocolError extends Error {
  /** The stable, machine-readable kind. */
  readonly kind: IggyErrorKind;
  /** Structured detail, when the thrower had any. */
  readonly context: Readonly<Record<string, unknown>> | undefined;

  constructor(kind: IggyErrorKind, message: string, options: IggyProtocolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.context = options.context;
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: true, enumerable: false });
  }

  /**
   * True when `value` carries the AGDX brand (from any `@agdx/*` package or copy), optionally of
   * the given kind.
   */
  static is(value: unknown, kind?: string): value is IggyProtocolError {
    return isBranded(value) && (kind === undefined || value.kind === kind);
  }

  /** Makes `instanceof` work across separately installed copies: brand plus kind. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (!isBranded(value)) return false;
    const kind = (this as unknown as { readonly KIND?: string }).KIND;
    return kind === undefined || value.kind === kind;
  }
}

/** Bytes received from the peer could not be decoded. */
export class IggyCodecError extends IggyProtocolError {
  /** The kind every instance carries. */
  static readonly KIND: IggyErrorKind = 'codec';
  constructor(message: string, options?: IggyProtocolErrorOptions) {
    super('codec', message, options);
  }
}

/** An argument broke a documented rule, or a session method was called in the wrong state. */
export class IggyInvalidError extends IggyProtocolError {
  /** The kind every instance carries. */
  static readonly KIND: IggyErrorKind = 'invalid';
  constructor(message: string, options?: IggyProtocolErrorOptions) {
    super('invalid', message, options);
  }
}

/** A message or batch checksum does not match the bytes it covers. */
export class IggyIntegrityError extends IggyProtocolError {
  /** The kind every instance carries. */
  static readonly KIND: IggyErrorKind = 'integrity';
  constructor(message: string, options?: IggyProtocolErrorOptions) {
    super('integrity', message, options);
  }
}

/** The runtime cannot provide an opt-in feature (for example it refuses to compile WebAssembly). */
export class IggyUnsupportedError extends IggyProtocolError {
  /** The kind every instance carries. */
  static readonly KIND: IggyErrorKind = 'unsupported';
  constructor(message: string, options?: IggyProtocolErrorOptions) {
    super('unsupported', message, options);
  }
}

/**
 * The server refused a request: a non-zero status (classic or VSR header), a non-zero code in a
 * VSR result section, or an eviction (see {@link IggyEvictionError}).
 */
export class IggyError extends IggyProtocolError {
  /** The kind every instance carries. */
  static readonly KIND: IggyErrorKind = 'rejected';
  /** The numeric IggyError code (for example 1009). */
  readonly code: number;
  /** The IggyError name (for example `StreamIdNotFound`), or `Unknown(<code>)`. */
  readonly codeName: string;

  constructor(code: number, message?: string, options?: IggyProtocolErrorOptions) {
    const codeName = iggyErrorName(code);
    super('rejected', message ?? `Iggy server error ${code} (${codeName})`, options);
    this.code = code;
    this.codeName = codeName;
  }

  /** True for the codes the server uses to ask for the identical request again (57, 58). */
  get transient(): boolean {
    return this.code === 57 || this.code === 58;
  }
}

/**
 * The VSR server ended the session with an Eviction frame. `code` is the IggyError the official
 * SDKs raise for the reason (for example reason 9 → 42 InvalidCredentials).
 */
export class IggyEvictionError extends IggyError {
  /** The eviction reason byte (offset 255 of the eviction header). */
  readonly reason: number;
  /** The reason's name (for example `InvalidCredentials`), or `Unknown(<reason>)`. */
  readonly reasonName: string;

  constructor(reason: number, reasonName: string, code: number, options?: IggyProtocolErrorOptions) {
    super(code, `Iggy server evicted the session: ${reasonName} (reason ${reason})`, options);
    this.reason = reason;
    this.reasonName = reasonName;
  }

  /** Brand plus kind `rejected`, plus the eviction `reason` field that sets it apart. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(value) && value.kind === 'rejected' && typeof (value as { reason?: unknown }).reason === 'number';
  }
}

/**
 * The `context.reason` values a client session puts on the `IggyCodecError` it throws for a
 * reply that answers no request: a VSR reply whose echoed request number (or operation) is not
 * in flight, and a reply of either protocol when nothing is in flight (a duplicated reply).
 */
export const UNMATCHED_REPLY = {
  /** VSR: the echoed request number or operation matches no request in flight. */
  requestNumber: 'unexpected-reply:request-number',
  /** A reply arrived while no request was waiting for one. */
  nothingInFlight: 'unexpected-reply:nothing-in-flight',
} as const;
