/**
 * The generic-CBOR view of an envelope: a Map in canonical key order with ids as 16-byte arrays,
 * every CBOR integer as a bigint and every metadata float as a number. This is what cbor2 encodes
 * (with `avoidInts`, so numbers stay floats) and decodes (with `preferBigInt` and `preferMap`).
 */
import type { AgentEnvelope, MetadataValue } from '@agdx/wire';

function metadataValue(v: MetadataValue): unknown {
  return Array.isArray(v) ? (v as readonly MetadataValue[]).map(metadataValue) : v;
}

/** Envelope → generic CBOR value (cbor2 input / expected cbor2 output). */
export function envelopeToCborValue(e: AgentEnvelope): Map<string, unknown> {
  const m = new Map<string, unknown>();
  m.set('kind', e.kind);
  if (e.record !== undefined) m.set('record', e.record.toBytes());
  m.set('conversation', e.conversation.toBytes());
  if (e.parent !== undefined) m.set('parent', e.parent.toBytes());
  if (e.root !== undefined) m.set('root', e.root.toBytes());
  m.set('source', e.source.value);
  if (e.target !== undefined) m.set('target', e.target.value);
  if (e.cause !== undefined) m.set('cause', e.cause.toBytes());
  if (e.causeAt !== undefined) m.set('cause_at', e.causeAt.toBytes());
  if (e.correlation !== undefined) m.set('correlation', e.correlation.toBytes());
  if (e.channel !== undefined) m.set('channel', e.channel.toBytes());
  if (e.idempotencyKey !== undefined) m.set('idempotency_key', e.idempotencyKey.value);
  if (e.deadlineMicros !== undefined) m.set('deadline_micros', e.deadlineMicros);
  if (e.sequence !== undefined) m.set('sequence', e.sequence);
  if (e.last) m.set('last', true);
  if (e.finishReason !== undefined) m.set('finish_reason', e.finishReason);
  if (e.taskState !== undefined) m.set('task_state', BigInt(e.taskState));
  if (e.operation !== undefined) m.set('operation', e.operation);
  if (e.tool !== undefined) m.set('tool', e.tool);
  if (e.usage !== undefined) {
    const u = e.usage;
    const um = new Map<string, unknown>([
      ['input_tokens', u.inputTokens],
      ['output_tokens', u.outputTokens],
    ]);
    if (u.reasoningOutputTokens !== undefined) um.set('reasoning_output_tokens', u.reasoningOutputTokens);
    if (u.cacheReadInputTokens !== undefined) um.set('cache_read_input_tokens', u.cacheReadInputTokens);
    if (u.cacheCreationInputTokens !== undefined) um.set('cache_creation_input_tokens', u.cacheCreationInputTokens);
    if (u.costMicros !== undefined) um.set('cost_micros', u.costMicros);
    m.set('usage', um);
  }
  if (e.metadata !== undefined) m.set('metadata', new Map([...e.metadata].map(([k, v]) => [k, metadataValue(v)])));
  if (e.mustUnderstand !== 0n) m.set('must_understand', e.mustUnderstand);
  if (e.body.length > 0) m.set('body', e.body);
  if (e.signature !== undefined) {
    const s = e.signature;
    const sm = new Map<string, unknown>([
      ['scheme', BigInt(s.scheme)],
      ['key_id', s.keyId],
      ['bytes', s.bytes],
    ]);
    if (s.context !== undefined) {
      const cm = new Map<string, unknown>();
      if (s.context.contentType !== undefined) cm.set('content_type', BigInt(s.context.contentType));
      if (s.context.agentVersion !== undefined) cm.set('agent_version', BigInt(s.context.agentVersion));
      sm.set('context', cm);
    }
    m.set('signature', sm);
  }
  return m;
}
