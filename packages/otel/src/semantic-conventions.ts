/**
 * The OpenTelemetry attribute and metric names this package writes: the GenAI and messaging
 * semantic conventions (still "development" upstream, so they are spelled out here rather than
 * taken from the incubating entry of `@opentelemetry/semantic-conventions`), plus a few
 * `agdx.*` names for what the conventions do not cover.
 */

/** GenAI attribute names. */
export const GenAiAttr = {
  operationName: 'gen_ai.operation.name',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  tokenType: 'gen_ai.token.type',
} as const;

/** Messaging attribute names. */
export const MessagingAttr = {
  system: 'messaging.system',
  operationName: 'messaging.operation.name',
  operationType: 'messaging.operation.type',
  destinationName: 'messaging.destination.name',
  partitionId: 'messaging.destination.partition.id',
  messageId: 'messaging.message.id',
  conversationId: 'messaging.message.conversation_id',
  consumerGroup: 'messaging.consumer.group.name',
} as const;

/** RPC attribute names (bridge calls: A2A and MCP are JSON-RPC). */
export const RpcAttr = {
  system: 'rpc.system',
  method: 'rpc.method',
  errorCode: 'rpc.jsonrpc.error_code',
  errorMessage: 'rpc.jsonrpc.error_message',
} as const;

/** AGDX-specific attribute names. */
export const AgdxAttr = {
  kind: 'agdx.kind',
  offset: 'agdx.offset',
  stream: 'agdx.stream',
  outcome: 'agdx.outcome',
  channel: 'agdx.channel',
  chunks: 'agdx.chunks',
  deadLetterReason: 'agdx.dead_letter.reason',
  waitKind: 'agdx.wait.kind',
  protocol: 'agdx.bridge.protocol',
  sessionOperation: 'agdx.session.operation',
  sseEndReason: 'agdx.sse.end_reason',
  sseEvents: 'agdx.sse.events',
  /** Prefix of the per-type event counts of a streamed answer: `agdx.sse.event_type.<type>`. */
  sseEventType: 'agdx.sse.event_type.',
} as const;

/** The `messaging.system` value: AGDX records live on Apache Iggy (or a log speaking its model). */
export const MESSAGING_SYSTEM = 'iggy';

/** Metric names. */
export const MetricName = {
  sent: 'agdx.records.sent',
  handled: 'agdx.records.handled',
  deadLettered: 'agdx.records.dead_lettered',
  handlerDuration: 'agdx.handler.duration',
  replyLatency: 'agdx.reply.latency',
  chunks: 'agdx.chunks',
  tokenUsage: 'gen_ai.client.token.usage',
} as const;
