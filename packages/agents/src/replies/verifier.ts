import type { AgentEnvelope, RecordHeaders, SignatureContext } from '@agdx/wire';

/** Who signed an envelope, as a {@link Verifier} established it. */
export interface VerifiedPrincipal {
  /** The principal the signing key is enrolled for. */
  readonly principal: string;
  /** The kind of the signing key (`agent` or `operator` in @agdx/sign). */
  readonly kind: string;
}

/**
 * What the client needs to accept only signed envelopes. Structural: @agdx/sign's `KeyRegistry`
 * has this shape. Implementations throw (or reject) when the envelope does not verify: unsigned,
 * unknown or revoked key, invalid signature, key outside its validity window at `atMicros`, or a
 * signed context that does not match the observed `agdx.ct`/`agdx.av` headers.
 */
export interface Verifier {
  /** Verifies `envelope` as of `atMicros` (the broker timestamp) against the observed headers. */
  verifyAt(
    envelope: AgentEnvelope,
    atMicros: bigint | number,
    observedHeaders?: RecordHeaders | SignatureContext,
  ): Promise<VerifiedPrincipal> | VerifiedPrincipal;
}
