import { AgentEnvelope, AgentId, MintUlid, RecordId, type ConversationId, type CorrelationId } from '@agdx/wire';

/** A response of `from` to `requester` answering `correlation`, with `body` as UTF-8; `patch` overrides fields. */
export function reply(
  conversation: ConversationId,
  correlation: CorrelationId,
  from: string,
  body: string,
  patch: Partial<Parameters<typeof AgentEnvelope.fromFields>[0]> = {},
): AgentEnvelope {
  return AgentEnvelope.fromFields({
    kind: 'response',
    record: MintUlid.mint(RecordId),
    conversation,
    source: AgentId.new(from),
    target: AgentId.new('requester'),
    correlation,
    body: new TextEncoder().encode(body),
    ...patch,
  });
}
