// The one module that touches @agdx/wire's envelope API, so the rest of the package works on
// bytes and plain signature fields.
import { encodeEnvelopeUnsigned, encodeEnvelopeUnsignedInto } from '@agdx/wire';
import type { AgentEnvelope, Signature } from '@agdx/wire';

/** Canonical CBOR of `envelope` with its signature removed: the span a signature covers. */
export function encodeUnsigned(envelope: AgentEnvelope): Uint8Array {
  return encodeEnvelopeUnsigned(envelope);
}

/**
 * {@link encodeUnsigned} written into `target` from `offset`; returns the bytes written.
 * @throws InvalidError with `context.field` = `target` (and `context.atLeast`) when it does not fit.
 */
export function encodeUnsignedInto(envelope: AgentEnvelope, target: Uint8Array, offset: number): number {
  return encodeEnvelopeUnsignedInto(envelope, target, offset);
}

/** The envelope with `signature` attached as its capsule. */
export function attachSignature(envelope: AgentEnvelope, signature: Signature): AgentEnvelope {
  return envelope.withSignature(signature);
}

/** The envelope's signature as plain fields, when it has one. */
export function signatureOf(envelope: AgentEnvelope): Signature | undefined {
  return envelope.signature;
}

/** The `on_behalf_of` metadata value, when the envelope carries one. */
export function onBehalfOf(envelope: AgentEnvelope): unknown {
  return envelope.metadata?.get('on_behalf_of');
}
