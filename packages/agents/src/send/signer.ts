import type { AgentEnvelope, SignatureContext } from '@agdx/wire';

/**
 * What a send builder needs to sign an envelope. Structural: @agdx/sign's `SigningKey` has this
 * shape, so pass one directly without this package depending on a crypto library.
 */
export interface Signer {
  /** The signer's 8-byte key id. */
  readonly keyId: Uint8Array;
  /** Returns the envelope with its signature attached over `context` (`agdx.ct` and `agdx.av`). */
  sign(envelope: AgentEnvelope, context?: SignatureContext): Promise<AgentEnvelope> | AgentEnvelope;
}
