import { AgdxError } from '@agdx/wire';
import type { AgdxErrorOptions, ErrorKind } from '@agdx/wire';

/**
 * A signature, key or key-record rule was broken: unsigned or tampered envelopes, unknown,
 * revoked or expired keys, malformed key material, bad Agent Card signatures.
 *
 * Kind `signature`. Like every AGDX error it is branded, so `instanceof` and
 * `AgdxError.is(e, 'signature')` work across separately installed copies.
 */
export class SignatureError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'signature';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('signature', message, options);
  }
}
