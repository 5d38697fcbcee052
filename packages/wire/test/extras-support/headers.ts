import {
  ConversationId,
  readFloat64Header,
  readStringHeader,
  readUint128Header,
  readUint32Header,
  readUint64Header,
  readUint8Header,
  stringHeader,
  uint128Header,
  uint32Header,
  uint8Header,
  type HeaderValue,
  type Provenance,
  type RecordHeaders,
} from '@agdx/wire';
import { fromHex } from './fixtures.js';

/** A header as the fixtures show it: `{key|name, kind, value}` with the value in logical form. */
export function headerToLogical(name: string, value: HeaderValue): { key: string; kind: string; value: unknown } {
  switch (value.kind) {
    case 'string':
      return { key: name, kind: 'text', value: readStringHeader(value, name) };
    case 'uint8':
      return { key: name, kind: 'uint8', value: readUint8Header(value, name) };
    case 'uint32':
      return { key: name, kind: 'uint32', value: readUint32Header(value, name) };
    case 'uint64':
      return { key: name, kind: 'uint64', value: readUint64Header(value, name).toString() };
    case 'float64':
      return { key: name, kind: 'float64', value: readFloat64Header(value, name) };
    default:
      throw new Error(`unexpected header kind ${value.kind}`);
  }
}

/** Builds RecordHeaders from the oracle's `{name, kind, value | value_hex_le}` list (0.1.1 layout). */
export function headersFromOracle(list: readonly any[]): RecordHeaders {
  const out = new Map<string, HeaderValue>();
  for (const h of list) {
    switch (h.kind) {
      case 'string':
        out.set(h.name, stringHeader(h.value));
        break;
      case 'uint32':
        out.set(h.name, uint32Header(h.value));
        break;
      case 'uint8':
        out.set(h.name, uint8Header(h.value));
        break;
      case 'uint128': {
        const le = fromHex(h.value_hex_le);
        let v = 0n;
        for (let i = le.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(le[i]!);
        out.set(h.name, uint128Header(v));
        break;
      }
      default:
        throw new Error(`unhandled oracle header kind ${h.kind}`);
    }
  }
  return out;
}

/** Oracle logical provenance → typed. */
export function provenanceFromOracle(p: any): Provenance {
  const out: any = { conversation: ConversationId.parse(p.conversation_id) };
  if (p.parent_conversation_id !== undefined) out.parent = ConversationId.parse(p.parent_conversation_id);
  if (p.root_conversation_id !== undefined) out.root = ConversationId.parse(p.root_conversation_id);
  if (p.causal_parent !== undefined) out.cause = p.causal_parent;
  if (p.agent !== undefined) out.agent = p.agent;
  if (p.target_agent_id !== undefined) out.target = p.target_agent_id;
  if (p.idempotency_key !== undefined) out.idempotencyKey = p.idempotency_key;
  if (p.correlation_id !== undefined) out.correlation = p.correlation_id;
  if (p.fence_token !== undefined) out.fence = BigInt(p.fence_token);
  if (p.deadline_micros !== undefined) out.deadlineMicros = BigInt(p.deadline_micros);
  if (p.usage !== undefined) {
    const u: any = {};
    if (p.usage.inputTokens !== undefined) u.inputTokens = BigInt(p.usage.inputTokens);
    if (p.usage.outputTokens !== undefined) u.outputTokens = BigInt(p.usage.outputTokens);
    if (p.usage.costUsd !== undefined) u.costUsd = p.usage.costUsd === 'NaN' ? Number.NaN : Number(p.usage.costUsd);
    out.usage = u;
  }
  return out as Provenance;
}

/** Typed provenance → oracle logical. */
export function provenanceToOracle(p: Provenance): any {
  const out: any = { conversation_id: p.conversation.toString() };
  if (p.agent !== undefined) out.agent = p.agent;
  if (p.target !== undefined) out.target_agent_id = p.target;
  if (p.idempotencyKey !== undefined) out.idempotency_key = p.idempotencyKey;
  if (p.correlation !== undefined) out.correlation_id = p.correlation;
  if (p.deadlineMicros !== undefined) out.deadline_micros = p.deadlineMicros.toString();
  if (p.fence !== undefined) out.fence_token = p.fence.toString();
  if (p.cause !== undefined) out.causal_parent = p.cause;
  if (p.parent !== undefined) out.parent_conversation_id = p.parent.toString();
  if (p.root !== undefined) out.root_conversation_id = p.root.toString();
  if (p.usage !== undefined) {
    const u: any = {};
    if (p.usage.inputTokens !== undefined) u.inputTokens = p.usage.inputTokens.toString();
    if (p.usage.outputTokens !== undefined) u.outputTokens = p.usage.outputTokens.toString();
    if (p.usage.costUsd !== undefined) u.costUsd = p.usage.costUsd;
    out.usage = u;
  }
  return out;
}

/** Reads a uint128 little-endian header value back as a conversation, for assertions. */
export function conversationFromUint128(value: HeaderValue): ConversationId {
  return ConversationId.fromBigInt(readUint128Header(value, 'gen_ai.conversation.id'));
}
