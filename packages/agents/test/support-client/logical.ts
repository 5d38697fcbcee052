/**
 * One converter between the oracle's logical envelope JSON and @agdx/wire types (the parts the
 * client tests need): envelope → logical for comparisons, logical → typed values for inputs.
 */
import {
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  IdempotencyKey,
  LogPosition,
  RecordId,
  taskStateDisplay,
  taskStateName,
  isTerminalTaskState,
  type AgentEnvelope,
  type MetadataValue,
  type TokenUsage,
} from '@agdx/wire';
import { fromHex, toHex } from './fixtures.js';

/** A logical metadata value. */
export type LogicalValue =
  | { type: 'string'; value: string }
  | { type: 'int'; value: string }
  | { type: 'float'; value: number | string; f64_hex: string }
  | { type: 'bool'; value: boolean }
  | { type: 'null' }
  | { type: 'list'; value: LogicalValue[] };

/** A logical envelope (oracle README conventions). */
export type LogicalEnvelope = Record<string, unknown> & {
  kind: string;
  conversation: string;
  source: string;
  body_hex: string;
  last: boolean;
  must_understand: string;
};

function f64Hex(n: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  return toHex(new Uint8Array(view.buffer));
}

function floatValue(n: number): number | string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (Object.is(n, -0)) return '-0';
  return n;
}

/** Typed metadata value → logical. */
export function valueToLogical(v: MetadataValue): LogicalValue {
  if (v === null) return { type: 'null' };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'bigint') return { type: 'int', value: v.toString() };
  if (typeof v === 'number') return { type: 'float', value: floatValue(v), f64_hex: f64Hex(v) };
  if (typeof v === 'boolean') return { type: 'bool', value: v };
  return { type: 'list', value: v.map(valueToLogical) };
}

/** Logical metadata value → typed. */
export function valueFromLogical(v: LogicalValue): MetadataValue {
  switch (v.type) {
    case 'null':
      return null;
    case 'string':
    case 'bool':
      return v.value;
    case 'int':
      return BigInt(v.value);
    case 'float':
      return new DataView(fromHex(v.f64_hex).buffer).getFloat64(0);
    case 'list':
      return v.value.map(valueFromLogical);
  }
}

type LogicalUsage = Record<string, string>;

/** Logical usage → typed. */
export function usageFromLogical(u: LogicalUsage): TokenUsage {
  const out: Record<string, bigint> = { inputTokens: BigInt(u.input_tokens ?? '0'), outputTokens: BigInt(u.output_tokens ?? '0') };
  if (u.reasoning_output_tokens !== undefined) out.reasoningOutputTokens = BigInt(u.reasoning_output_tokens);
  if (u.cache_read_input_tokens !== undefined) out.cacheReadInputTokens = BigInt(u.cache_read_input_tokens);
  if (u.cache_creation_input_tokens !== undefined) out.cacheCreationInputTokens = BigInt(u.cache_creation_input_tokens);
  if (u.cost_micros !== undefined) out.costMicros = BigInt(u.cost_micros);
  return out as unknown as TokenUsage;
}

function usageToLogical(u: TokenUsage): LogicalUsage {
  const out: LogicalUsage = { input_tokens: u.inputTokens.toString(), output_tokens: u.outputTokens.toString() };
  if (u.reasoningOutputTokens !== undefined) out.reasoning_output_tokens = u.reasoningOutputTokens.toString();
  if (u.cacheReadInputTokens !== undefined) out.cache_read_input_tokens = u.cacheReadInputTokens.toString();
  if (u.cacheCreationInputTokens !== undefined) out.cache_creation_input_tokens = u.cacheCreationInputTokens.toString();
  if (u.costMicros !== undefined) out.cost_micros = u.costMicros.toString();
  return out;
}

/** Logical cause_at → LogPosition. */
export function causeAtFromLogical(c: { stream_id: number; topic_id: number; partition_id: number; offset: string }): LogPosition {
  return new LogPosition(c.stream_id, c.topic_id, c.partition_id, BigInt(c.offset));
}

/** Typed envelope → logical JSON, keys in the README's order, absent optionals omitted. */
export function envelopeToLogical(e: AgentEnvelope): LogicalEnvelope {
  const out: Record<string, unknown> = { kind: e.kind };
  if (e.record !== undefined) out.record = e.record.toString();
  out.conversation = e.conversation.toString();
  if (e.parent !== undefined) out.parent = e.parent.toString();
  if (e.root !== undefined) out.root = e.root.toString();
  out.source = e.source.value;
  if (e.target !== undefined) out.target = e.target.value;
  if (e.cause !== undefined) out.cause = e.cause.toString();
  if (e.causeAt !== undefined) {
    out.cause_at = { stream_id: e.causeAt.streamId, topic_id: e.causeAt.topicId, partition_id: e.causeAt.partitionId, offset: e.causeAt.offset.toString() };
  }
  if (e.correlation !== undefined) out.correlation = e.correlation.toString();
  if (e.channel !== undefined) out.channel = e.channel.toString();
  if (e.idempotencyKey !== undefined) out.idempotency_key = e.idempotencyKey.value;
  if (e.deadlineMicros !== undefined) out.deadline_micros = e.deadlineMicros.toString();
  if (e.sequence !== undefined) out.sequence = e.sequence.toString();
  out.last = e.last;
  if (e.finishReason !== undefined) out.finish_reason = e.finishReason;
  if (e.taskState !== undefined) {
    const name = taskStateName(e.taskState);
    out.task_state = { code: e.taskState, name: name ?? null, display: taskStateDisplay(e.taskState), terminal: isTerminalTaskState(e.taskState) };
  }
  if (e.operation !== undefined) out.operation = e.operation;
  if (e.tool !== undefined) out.tool = e.tool;
  if (e.usage !== undefined) out.usage = usageToLogical(e.usage);
  if (e.metadata !== undefined) out.metadata = [...e.metadata].map(([k, v]) => [k, valueToLogical(v)]);
  out.must_understand = e.mustUnderstand.toString();
  out.body_hex = toHex(e.body);
  if (e.signature !== undefined) {
    const s = e.signature;
    const sig: Record<string, unknown> = { scheme: s.scheme, key_id_hex: toHex(s.keyId), bytes_hex: toHex(s.bytes) };
    if (s.context !== undefined) {
      const ctx: Record<string, number> = {};
      if (s.context.contentType !== undefined) ctx.content_type = s.context.contentType;
      if (s.context.agentVersion !== undefined) ctx.agent_version = s.context.agentVersion;
      sig.context = ctx;
    }
    out.signature = sig;
  }
  return out as LogicalEnvelope;
}

/** Typed id parsers for logical fields. */
export const ids: {
  record: (s: string) => RecordId;
  conversation: (s: string) => ConversationId;
  correlation: (s: string) => CorrelationId;
  channel: (s: string) => ChannelId;
  agent: (s: string) => AgentId;
  idem: (s: string) => IdempotencyKey;
} = {
  record: (s) => RecordId.parse(s),
  conversation: (s) => ConversationId.parse(s),
  correlation: (s) => CorrelationId.parse(s),
  channel: (s) => ChannelId.parse(s),
  agent: (s) => AgentId.parse(s),
  idem: (s) => IdempotencyKey.new(s),
};
