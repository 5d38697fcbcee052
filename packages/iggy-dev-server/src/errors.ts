/**
 * The dev server's own errors (bad options, unreadable data folders). They carry the AGDX brand
 * (`Symbol.for('agdx.error')`) and a stable `kind`, like every AGDX package; protocol-level
 * refusals travel to clients as Iggy status codes instead and never surface here.
 */

const BRAND: unique symbol = Symbol.for('agdx.error') as never;

/**
 * Stable kinds: `invalid` (a bad option), `storage` (the data folder cannot be used), `internal`
 * (the server cannot set itself up: the WebAssembly batch hasher failed to load for a reason other
 * than the runtime not supporting WebAssembly, which points at a damaged package or bundle).
 */
export type DevServerErrorKind = 'invalid' | 'storage' | 'internal';

/** An error thrown by the dev server's programmatic API. */
export class DevServerError extends Error {
  /** The stable, machine-readable kind. */
  readonly kind: DevServerErrorKind;

  constructor(kind: DevServerErrorKind, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DevServerError';
    this.kind = kind;
    Object.defineProperty(this, BRAND, { value: true, enumerable: false });
  }

  /** True for any AGDX-branded error of this kind (works across package copies). */
  static is(value: unknown, kind?: DevServerErrorKind): value is DevServerError {
    if (typeof value !== 'object' || value === null) return false;
    if ((value as Record<symbol, unknown>)[BRAND] !== true) return false;
    return kind === undefined || (value as { kind?: unknown }).kind === kind;
  }
}
