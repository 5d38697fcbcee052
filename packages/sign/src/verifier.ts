import type { AgentEnvelope, SignatureContext } from '@agdx/wire';
import type { KeyKind } from './key-kind.js';
import type { ObservedHeaders } from './observed-headers.js';

/** Who signed an envelope, as established by a verifier. */
export interface VerifiedPrincipal {
  /** The principal the signing key is enrolled for. */
  readonly principal: string;
  /** The kind of the signing key. */
  readonly kind: KeyKind;
}

/**
 * What an agent runtime needs to sign outgoing envelopes. Structural: @agdx/agents declares the
 * same shape and accepts any object that has it, without importing this package.
 * {@link SigningKey} implements it.
 */
export interface Signer {
  /** The signer's 8-byte key id. */
  readonly keyId: Uint8Array;
  /** Returns the envelope with its signature attached. */
  sign(envelope: AgentEnvelope, context?: SignatureContext): Promise<AgentEnvelope> | AgentEnvelope;
}

/**
 * What an agent runtime needs to accept only signed envelopes. Structural, like {@link Signer};
 * {@link KeyRegistry} implements it. Implementations reject (throw or return a rejected
 * Promise) with a `signature` error when the envelope does not verify.
 */
export interface Verifier {
  /**
   * Verifies `envelope` at `atMicros` (epoch microseconds, usually the broker timestamp) and,
   * when `observedHeaders` is given, that the signature binds those `agdx.ct`/`agdx.av` values.
   */
  verifyAt(
    envelope: AgentEnvelope,
    atMicros: bigint | number,
    observedHeaders?: ObservedHeaders,
  ): Promise<VerifiedPrincipal> | VerifiedPrincipal;
}
