/**
 * Processed-key records an agent signs. A processed key makes the runtime commit a command
 * without handling it, so under a verifier a key that anyone who can append to the store's topic
 * wrote would let them swallow signed commands whose idempotency keys they can guess (order ids,
 * say). Signed, each key is an AGDX event (operation `processed_key`, the key as its UTF-8 body)
 * from the agent, and the store counts only those that verify as signed by a key enrolled for it.
 */
import type { LogRecord } from '@agdx/transport';
import {
  AGENT_OP_VERSION,
  InvalidError,
  AgentEnvelope,
  ContentType,
  ConversationId,
  envelopeRecord,
  MintUlid,
  RecordId,
  type AgentId,
  type RecordHeaders,
} from '@agdx/wire';
import { signedByAgent } from '../replies/reply-signers.js';
import { toAgentId, type AgentIdLike } from '../send/refinements.js';
import type { Verifier } from '../replies/verifier.js';
import type { Signer } from '../send/signer.js';

/** The operation of a signed processed-key event. */
export const PROCESSED_KEY_OPERATION = 'processed_key';

/** Who signs a store's keys, and who checks them. */
export interface ProcessedKeySigning {
  /** The agent the keys are recorded for: its key signs them, and only its signed keys count. */
  readonly agent: AgentIdLike;
  /** Signs each key this store records (the agent's signing key). */
  readonly signer: Signer;
  /** Checks each key read back; it must hold a key enrolled for `agent`. */
  readonly verifier: Verifier;
}

/** {@link ProcessedKeySigning} with its agent id parsed. */
export interface CheckedSigning {
  readonly agent: AgentId;
  readonly signer: Signer;
  readonly verifier: Verifier;
}

/**
 * Checks the signing option once, when the store opens.
 * @throws InvalidError for an invalid agent id, or a signer or verifier without its method.
 */
export function checkSigning(signing: ProcessedKeySigning): CheckedSigning {
  if (typeof signing !== 'object' || signing === null) throw new InvalidError('signing must be an object', { context: { field: 'signing' } });
  const { signer, verifier } = signing;
  if (typeof signer?.sign !== 'function') throw new InvalidError('signing.signer must have sign()', { context: { field: 'signing.signer' } });
  if (typeof verifier?.verifyAt !== 'function') throw new InvalidError('signing.verifier must have verifyAt()', { context: { field: 'signing.verifier' } });
  return { agent: toAgentId(signing.agent), signer, verifier };
}

// Strict: a body that is not UTF-8 names no key the runtime could have recorded.
const keyText = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** The signed record for `key`: headers (`extra` added) and payload. */
export async function signedKeyRecord(signing: CheckedSigning, key: string, extra: RecordHeaders): Promise<{ headers: RecordHeaders; payload: Uint8Array }> {
  // The conversation only satisfies the envelope's shape; a fresh one ties the key to nothing.
  const unsigned = AgentEnvelope.event(MintUlid.mint(RecordId), ConversationId.new(), signing.agent, encoder.encode(key)).withOperation(PROCESSED_KEY_OPERATION);
  const envelope = await signing.signer.sign(unsigned, { contentType: ContentType.raw, agentVersion: AGENT_OP_VERSION });
  const record = envelopeRecord(envelope, ContentType.raw);
  return { headers: new Map([...record.headers, ...extra]), payload: record.payload };
}

/** The key a signed record names, or undefined when it is not one the agent's key signed. */
export async function verifiedKey(signing: CheckedSigning, record: LogRecord): Promise<string | undefined> {
  let envelope: AgentEnvelope;
  try {
    envelope = AgentEnvelope.decode(record.payload);
  } catch {
    return undefined;
  }
  if (envelope.kind !== 'event' || envelope.operation !== PROCESSED_KEY_OPERATION) return undefined;
  // Unsigned, another key or tampered: not a processed key.
  if (!(await signedByAgent(signing.verifier, envelope, record, signing.agent.value))) return undefined;
  try {
    return keyText.decode(envelope.body);
  } catch {
    // A body that is no key (not UTF-8).
    return undefined;
  }
}
