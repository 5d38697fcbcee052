import type { AgentEnvelope, AgentId, ConversationId, CorrelationId, RecordId } from '@agdx/wire';

/** What a reply must match to answer a request (seed 000 "A reply answers a request only when..."). */
export interface ReplyCriteria {
  /** The request's correlation. */
  readonly correlation: CorrelationId;
  /** The request's session. */
  readonly conversation: ConversationId;
  /**
   * The requester. A reply addressed to another agent never answers; an unaddressed (broadcast)
   * reply does.
   */
  readonly requester?: AgentId | undefined;
  /** The request's own record id: a request never answers its own wait. */
  readonly request?: RecordId | undefined;
}

/**
 * The seed's reply rule without signatures: same correlation and session, a response or an
 * error, addressed to the requester (or to everyone) when the request named one, and not the
 * request itself.
 */
export function answersRequest(envelope: AgentEnvelope, criteria: ReplyCriteria): boolean {
  if (envelope.kind !== 'response' && envelope.kind !== 'error') return false;
  if (envelope.correlation === undefined || !envelope.correlation.equals(criteria.correlation)) return false;
  if (!envelope.conversation.equals(criteria.conversation)) return false;
  if (criteria.requester !== undefined && envelope.target !== undefined && envelope.target.value !== criteria.requester.value) return false;
  if (criteria.request !== undefined && envelope.record !== undefined && envelope.record.equals(criteria.request)) return false;
  return true;
}
