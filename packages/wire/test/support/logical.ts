/**
 * The ONE converter between the oracle's logical envelope JSON (see shared/fixtures/oracle/README.md)
 * and our typed AgentEnvelope. Every family that shows an envelope goes through it.
 */
import {
  AgentEnvelope,
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  IdempotencyKey,
  isTerminalTaskState,
  LogPosition,
  RecordId,
  taskStateDisplay,
  taskStateName,
  type AgentKind,
  type EnvelopeFields,
  type MetadataValue,
  type Signature,
  type TokenUsage,
} from '@agdx/wire';
import { fromHex, toHex } from './fixtures.js';

/** A logical metadata value. */
export interface LogicalValue {
  type: 'string' | 'int' | 'float' | 'bool' | 'null' | 'list';
  value?: unknown;
  f64_hex?: string;
}

/** A logical envelope (keys in the oracle's order). */
export type LogicalEnvelope = Record<string, any>;

const scratch = new DataView(new ArrayBuffer(8));

function f64Hex(v: number): string {
  scratch.setFloat64(0, v);
  let s = '';
  for (let i = 0; i < 8; i++) s += scratch.getUint8(i).toString(16).padStart(2, '0');
  return s;
}

function fromF64Hex(hex: string): number {
  for (let i = 0; i < 8; i++) scratch.setUint8(i, parseInt(hex.slice(i * 2, i * 2 + 2), 16));
  return scratch.getFloat64(0);
}

function floatLogicalValue(v: number): number | string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return v;
}

/** Logical metadata value → typed. */
export function valueFromLogical(v: LogicalValue): MetadataValue {
  switch (v.type) {
    case 'string':
      return v.value as string;
    case 'int':
      return BigInt(v.value as string);
    case 'float':
      if (v.f64_hex !== undefined) return fromF64Hex(v.f64_hex);
      return Number(v.value);
    case 'bool':
      return v.value as boolean;
    case 'null':
      return null;
    case 'list':
      return (v.value as LogicalValue[]).map(valueFromLogical);
    default:
      throw new Error(`unknown logical value type ${String((v as LogicalValue).type)}`);
  }
}

/** Typed metadata value → logical. */
export function valueToLogical(v: MetadataValue): LogicalValue {
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'bigint') return { type: 'int', value: v.toString() };
  if (typeof v === 'number') return { type: 'float', f64_hex: f64Hex(v), value: floatLogicalValue(v) };
  if (typeof v === 'boolean') return { type: 'bool', value: v };
  if (v === null) return { type: 'null' };
  return { type: 'list', value: (v as readonly MetadataValue[]).map(valueToLogical) };
}

/** Logical JSON → typed envelope (no validation). */
export function envelopeFromLogical(j: LogicalEnvelope): AgentEnvelope {
  const f: { -readonly [K in keyof EnvelopeFields]: EnvelopeFields[K] } = {
    kind: j.kind as AgentKind,
    conversation: ConversationId.parse(j.conversation),
    source: AgentId.parse(j.source),
  };
  if (j.record !== undefined) f.record = RecordId.parse(j.record);
  if (j.parent !== undefined) f.parent = ConversationId.parse(j.parent);
  if (j.root !== undefined) f.root = ConversationId.parse(j.root);
  if (j.target !== undefined) f.target = AgentId.parse(j.target);
  if (j.cause !== undefined) f.cause = RecordId.parse(j.cause);
  if (j.cause_at !== undefined) {
    const p = j.cause_at;
    f.causeAt = new LogPosition(p.stream_id, p.topic_id, p.partition_id, BigInt(p.offset));
  }
  if (j.correlation !== undefined) f.correlation = CorrelationId.parse(j.correlation);
  if (j.channel !== undefined) f.channel = ChannelId.parse(j.channel);
  if (j.idempotency_key !== undefined) f.idempotencyKey = IdempotencyKey.new(j.idempotency_key);
  if (j.deadline_micros !== undefined) f.deadlineMicros = BigInt(j.deadline_micros);
  if (j.sequence !== undefined) f.sequence = BigInt(j.sequence);
  f.last = j.last === true;
  if (j.finish_reason !== undefined) f.finishReason = j.finish_reason;
  if (j.task_state !== undefined) f.taskState = j.task_state.code;
  if (j.operation !== undefined) f.operation = j.operation;
  if (j.tool !== undefined) f.tool = j.tool;
  if (j.usage !== undefined) {
    const u = j.usage;
    const usage: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = {
      inputTokens: BigInt(u.input_tokens),
      outputTokens: BigInt(u.output_tokens),
    };
    if (u.reasoning_output_tokens !== undefined) usage.reasoningOutputTokens = BigInt(u.reasoning_output_tokens);
    if (u.cache_read_input_tokens !== undefined) usage.cacheReadInputTokens = BigInt(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens !== undefined) usage.cacheCreationInputTokens = BigInt(u.cache_creation_input_tokens);
    if (u.cost_micros !== undefined) usage.costMicros = BigInt(u.cost_micros);
    f.usage = usage;
  }
  if (j.metadata !== undefined) {
    f.metadata = new Map((j.metadata as [string, LogicalValue][]).map(([k, v]) => [k, valueFromLogical(v)]));
  }
  f.mustUnderstand = BigInt(j.must_understand ?? '0');
  f.body = fromHex(j.body_hex ?? '');
  if (j.signature !== undefined) {
    const s = j.signature;
    const sig: { -readonly [K in keyof Signature]: Signature[K] } = {
      scheme: s.scheme,
      keyId: fromHex(s.key_id_hex),
      bytes: fromHex(s.bytes_hex),
    };
    if (s.context !== undefined) {
      const ctx: { contentType?: number; agentVersion?: number } = {};
      if (s.context.content_type !== undefined) ctx.contentType = s.context.content_type;
      if (s.context.agent_version !== undefined) ctx.agentVersion = s.context.agent_version;
      sig.context = ctx;
    }
    f.signature = sig;
  }
  return AgentEnvelope.fromFields(f);
}

/** Typed envelope → logical JSON, in the oracle's key order. */
export function envelopeToLogical(e: AgentEnvelope): LogicalEnvelope {
  const j: LogicalEnvelope = { kind: e.kind };
  if (e.record !== undefined) j.record = e.record.toString();
  j.conversation = e.conversation.toString();
  if (e.parent !== undefined) j.parent = e.parent.toString();
  if (e.root !== undefined) j.root = e.root.toString();
  j.source = e.source.value;
  if (e.target !== undefined) j.target = e.target.value;
  if (e.cause !== undefined) j.cause = e.cause.toString();
  if (e.causeAt !== undefined) {
    const p = e.causeAt;
    j.cause_at = { stream_id: p.streamId, topic_id: p.topicId, partition_id: p.partitionId, offset: p.offset.toString() };
  }
  if (e.correlation !== undefined) j.correlation = e.correlation.toString();
  if (e.channel !== undefined) j.channel = e.channel.toString();
  if (e.idempotencyKey !== undefined) j.idempotency_key = e.idempotencyKey.value;
  if (e.deadlineMicros !== undefined) j.deadline_micros = e.deadlineMicros.toString();
  if (e.sequence !== undefined) j.sequence = e.sequence.toString();
  j.last = e.last;
  if (e.finishReason !== undefined) j.finish_reason = e.finishReason;
  if (e.taskState !== undefined) {
    const code = e.taskState;
    j.task_state = { code, name: taskStateName(code) ?? null, display: taskStateDisplay(code), terminal: isTerminalTaskState(code) };
  }
  if (e.operation !== undefined) j.operation = e.operation;
  if (e.tool !== undefined) j.tool = e.tool;
  if (e.usage !== undefined) {
    const u = e.usage;
    const lu: Record<string, string> = { input_tokens: u.inputTokens.toString(), output_tokens: u.outputTokens.toString() };
    if (u.reasoningOutputTokens !== undefined) lu.reasoning_output_tokens = u.reasoningOutputTokens.toString();
    if (u.cacheReadInputTokens !== undefined) lu.cache_read_input_tokens = u.cacheReadInputTokens.toString();
    if (u.cacheCreationInputTokens !== undefined) lu.cache_creation_input_tokens = u.cacheCreationInputTokens.toString();
    if (u.costMicros !== undefined) lu.cost_micros = u.costMicros.toString();
    j.usage = lu;
  }
  if (e.metadata !== undefined) j.metadata = [...e.metadata].map(([k, v]) => [k, valueToLogical(v)]);
  j.must_understand = e.mustUnderstand.toString();
  j.body_hex = toHex(e.body);
  if (e.signature !== undefined) {
    const s = e.signature;
    const ls: Record<string, unknown> = { scheme: s.scheme, key_id_hex: toHex(s.keyId), bytes_hex: toHex(s.bytes) };
    if (s.context !== undefined) {
      const c: Record<string, number> = {};
      if (s.context.contentType !== undefined) c.content_type = s.context.contentType;
      if (s.context.agentVersion !== undefined) c.agent_version = s.context.agentVersion;
      ls.context = c;
    }
    j.signature = ls;
  }
  return j;
}

/**
 * Our logical view as reference 0.1.1 would print it: 0.1.1 does not know task state 10 (Paused,
 * a seed addition), so it names it `null` / `unrecognized-10`. The wire code is identical.
 */
export function asReferenceLogical(j: LogicalEnvelope): LogicalEnvelope {
  if (j.task_state?.code === 10) {
    return { ...j, task_state: { ...j.task_state, name: null, display: 'unrecognized-10', terminal: false } };
  }
  return j;
}
