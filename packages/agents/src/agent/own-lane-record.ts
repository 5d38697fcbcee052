/**
 * Which lane records an agent may rebuild its parking state from after a restart: a record on
 * `agent.sessions` only claims its `source`, so an agent that signs its lane records trusts those
 * its own key signed and no others.
 */
import type { LogRecord } from '@agdx/transport';
import type { AgentEnvelope } from '@agdx/wire';
import type { SkipReason } from '../errors.js';
import { speaksAsSigner } from '../replies/reply-signers.js';
import type { Verifier, VerifiedPrincipal } from '../replies/verifier.js';

/**
 * True when a lane record that claims to be `me`'s verifies as signed by a key enrolled for `me`,
 * speaking as it; otherwise `skip` hears why.
 */
export async function signedByMe(
  verifier: Verifier,
  envelope: AgentEnvelope,
  record: LogRecord,
  me: string,
  skip: (reason: SkipReason, message: string, cause?: unknown) => void,
): Promise<boolean> {
  let signer: VerifiedPrincipal;
  try {
    signer = await verifier.verifyAt(envelope, record.timestampMicros, record.headers);
  } catch (error) {
    skip('unverified', "a lane record claiming to be this agent's failed verification; recovery passes over it", error);
    return false;
  }
  if (signer.principal !== me || !speaksAsSigner(envelope, signer)) {
    skip('source-mismatch', `a lane record claiming to be \`${me}\`'s was signed by a key of \`${signer.principal}\`; recovery passes over it`);
    return false;
  }
  return true;
}
