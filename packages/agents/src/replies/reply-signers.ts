/**
 * Who may answer a verified wait. A signature only proves which key signed; the wait must also
 * say whose answer it expects, or any enrolled agent (an insider) could complete someone else's
 * request.
 */
import type { LogRecord } from '@agdx/transport';
import { InvalidError, type AgentEnvelope, type AgentId } from '@agdx/wire';
import { HandlerConfigError } from '../errors.js';
import { toAgentId, type AgentIdLike } from '../send/refinements.js';
import type { Verifier, VerifiedPrincipal } from './verifier.js';

/**
 * The signers a verified wait accepts: one agent, a list of agents, or a predicate over the
 * verified signer (and the reply). An agent id matches the principal its key is enrolled for.
 * `() => true` accepts any enrolled key, and has to be written out on purpose.
 */
export type ReplySignerPolicy =
  | AgentIdLike
  | readonly AgentIdLike[]
  | ((signer: VerifiedPrincipal, reply: AgentEnvelope) => boolean);

/** A normalised {@link ReplySignerPolicy}. */
export type SignerCheck = (signer: VerifiedPrincipal, reply: AgentEnvelope) => boolean;

/**
 * Normalises a policy into a check.
 * @throws InvalidError for an empty list or an invalid agent id.
 */
export function signerCheck(policy: ReplySignerPolicy, field: string = 'expectFrom'): SignerCheck {
  if (typeof policy === 'function') {
    return (signer, reply) => {
      try {
        return policy(signer, reply) === true;
      } catch {
        // A policy that throws has not allowed anything.
        return false;
      }
    };
  }
  if (Array.isArray(policy)) {
    if (policy.length === 0) throw new InvalidError(`${field} must name at least one agent`, { context: { field } });
    const allowed = new Set(policy.map((id: AgentIdLike) => toAgentId(id).value));
    return (signer) => allowed.has(signer.principal);
  }
  const only = toAgentId(policy as AgentIdLike).value;
  return (signer) => signer.principal === only;
}

/**
 * True when the envelope speaks as the agent its key is enrolled for. A verified signature
 * proves the key, not the `source` field; an agent's key must not sign records that claim to
 * come from someone else.
 */
export function speaksAsSigner(envelope: AgentEnvelope, signer: VerifiedPrincipal): boolean {
  return envelope.source.value === signer.principal;
}

/**
 * True when `envelope` (read as `record`, judged at its broker time) verifies as signed by a key
 * enrolled for `agent` and speaks as that agent: what a reader trusts as the agent's own record.
 * Otherwise `refused` hears why: `unverified` with the verifier's error, or `source-mismatch`
 * with the principal whose key signed it.
 */
export async function signedByAgent(
  verifier: Verifier,
  envelope: AgentEnvelope,
  record: LogRecord,
  agent: string,
  refused?: (reason: 'unverified' | 'source-mismatch', detail: { readonly cause?: unknown; readonly signer?: string }) => void,
): Promise<boolean> {
  let signer: VerifiedPrincipal;
  try {
    signer = await verifier.verifyAt(envelope, record.timestampMicros, record.headers);
  } catch (cause) {
    refused?.('unverified', { cause });
    return false;
  }
  if (signer.principal !== agent || !speaksAsSigner(envelope, signer)) {
    refused?.('source-mismatch', { signer: signer.principal });
    return false;
  }
  return true;
}

/**
 * Whom an edge bridge trusts to answer its calls: the agent it fronts and, optionally, explicit
 * signers. Both bridges hold one, so their calls resolve targets and reply policies the same way.
 */
export class FrontedReplies {
  #fronted: AgentId | undefined;
  #signers: ReplySignerPolicy | undefined;

  /**
   * Sets the agent the bridge fronts.
   * @throws InvalidError for an invalid agent id.
   */
  front(agent: AgentIdLike): void {
    this.#fronted = toAgentId(agent);
  }

  /**
   * Sets the signers whose replies count instead of the target or the fronted agent.
   * @throws InvalidError for an empty list or an invalid agent id.
   */
  trust(policy: ReplySignerPolicy): void {
    signerCheck(policy, 'replySigners');
    this.#signers = policy;
  }

  /** The fronted agent, when set. */
  get fronted(): AgentId | undefined {
    return this.#fronted;
  }

  /** The addressee of a call: its explicit target, else the fronted agent. */
  targetOf(explicit: AgentIdLike | undefined): AgentIdLike | undefined {
    return explicit ?? this.#fronted;
  }

  /**
   * The `expectFrom` of a call's wait: the explicit signers, else the call's target, else the
   * fronted agent (undefined when `verifying` is false and none is set).
   * @throws HandlerConfigError when `verifying` and none is set: the bridge was deployed without
   * saying whom it trusts, which is the operator's mistake, not the caller's.
   */
  policyFor(target: AgentIdLike | undefined, verifying: boolean): ReplySignerPolicy | undefined {
    const policy = this.#signers ?? target ?? this.#fronted;
    if (policy === undefined && verifying) {
      throw new HandlerConfigError('a bridge with a verifier needs the agent it fronts (forAgent) or its reply signers (withReplySigners)', {
        context: { field: 'replySigners' },
      });
    }
    return policy;
  }
}
