import { concatBytes } from './bytes.js';
import { sharedContextBytes } from './signature-context.js';
import type { SignatureContext } from '@agdx/wire';

/** The signing domain, 17 ASCII bytes with no terminator or length prefix. */
export const SIGNATURE_DOMAIN = 'agdx.signature.v1';

/** {@link SIGNATURE_DOMAIN} as bytes. */
export const DOMAIN_BYTES: Uint8Array = new TextEncoder().encode(SIGNATURE_DOMAIN);

/**
 * The signing input for already-encoded envelope bytes: `agdx.signature.v1` ‖ CBOR(context)
 * when a context is bound ‖ the canonical envelope CBOR with `signature` absent.
 */
export function signingInputFromEncoded(unsignedEnvelope: Uint8Array, context?: SignatureContext): Uint8Array {
  return context === undefined
    ? concatBytes(DOMAIN_BYTES, unsignedEnvelope)
    : concatBytes(DOMAIN_BYTES, sharedContextBytes(context), unsignedEnvelope);
}
