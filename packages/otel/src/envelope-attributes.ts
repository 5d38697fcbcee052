/** Span attributes of an AGDX envelope, in the GenAI and messaging vocabularies. */
import type { Attributes } from '@opentelemetry/api';
import type { AgentEnvelope, TokenUsage } from '@agdx/wire';
import { AgdxAttr, GenAiAttr, MESSAGING_SYSTEM, MessagingAttr } from './semantic-conventions.js';

/** The GenAI operation an envelope stands for: a tool call, or the envelope's own operation name. */
export function operationOf(envelope: AgentEnvelope): string | undefined {
  if (envelope.tool !== undefined) return 'execute_tool';
  return envelope.operation;
}

/** Attributes every span about one envelope carries. */
export function envelopeAttributes(envelope: AgentEnvelope, stream: string, topic: string): Attributes {
  const attributes: Attributes = {
    [MessagingAttr.system]: MESSAGING_SYSTEM,
    [MessagingAttr.destinationName]: topic,
    [AgdxAttr.stream]: stream,
    [AgdxAttr.kind]: envelope.kind,
    [GenAiAttr.conversationId]: envelope.conversation.toString(),
    [GenAiAttr.agentId]: envelope.source.value,
    [GenAiAttr.agentName]: envelope.source.value,
  };
  if (envelope.record !== undefined) attributes[MessagingAttr.messageId] = envelope.record.toString();
  const operation = operationOf(envelope);
  if (operation !== undefined) attributes[GenAiAttr.operationName] = operation;
  if (envelope.tool !== undefined) attributes[GenAiAttr.toolName] = envelope.tool;
  if (envelope.correlation !== undefined) {
    attributes[MessagingAttr.conversationId] = envelope.correlation.toString();
    if (envelope.tool !== undefined) attributes[GenAiAttr.toolCallId] = envelope.correlation.toString();
  }
  if (envelope.finishReason !== undefined) attributes[GenAiAttr.finishReasons] = [envelope.finishReason];
  if (envelope.usage !== undefined) Object.assign(attributes, usageAttributes(envelope.usage));
  return attributes;
}

/** `gen_ai.usage.*` attributes (token counts past 2^53 are clamped: attributes are JS numbers). */
export function usageAttributes(usage: TokenUsage): Attributes {
  return { [GenAiAttr.inputTokens]: toNumber(usage.inputTokens), [GenAiAttr.outputTokens]: toNumber(usage.outputTokens) };
}

/** A bigint count as a safe JS number. */
export function toNumber(count: bigint): number {
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
}
